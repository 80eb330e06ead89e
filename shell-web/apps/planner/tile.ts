/**
 * Planner tile: builds an agenda from another app's notes. Calling into Notes
 * is cross-app, so the first attempt meets GRANT_REQUIRED; the tile then asks
 * the person (through the kernel's dialog) and retries.
 */
import { BusError, createMsgBusClient } from '../../sdk/index.ts'
import { el, mount } from '../ui.ts'

const bus = createMsgBusClient()
const NOTES = 'app:notes:background'
const topic = el('input', { name: 'topic', value: 'roadmap', placeholder: 'Topic' })
const agenda = el('ol', { class: 'agenda' })
const status = el('p', { class: 'status', role: 'status' })
const ask = el('div', { class: 'row', hidden: true },
  el('button', { type: 'button', class: 'grant-once', onclick: () => requestAccess('call') }, 'Allow Notes once'),
  el('button', { type: 'button', class: 'grant-session', onclick: () => requestAccess('session') }, 'Allow Notes for this session'),
)

async function find(event?: Event) {
  event?.preventDefault()
  ask.hidden = true
  try {
    const { matches } = await bus.callTool<{ matches: { title: string; snippet: string }[] }>({ target: NOTES, name: 'notes_search', arguments: { query: topic.value, limit: 8 } })
    agenda.replaceChildren(...matches.map((m) => el('li', {}, el('strong', {}, m.title), el('div', { class: 'muted' }, m.snippet))))
    status.textContent = `${matches.length} agenda item(s) from Notes.`
  } catch (error) {
    if (error instanceof BusError && error.code === 'GRANT_REQUIRED') {
      status.textContent = 'Planner needs your permission to read Notes.'
      ask.hidden = false
    } else status.textContent = error instanceof BusError ? `${error.code}: ${error.message}` : String(error)
  }
}

async function requestAccess(scope: 'call' | 'session') {
  ask.hidden = true
  status.textContent = 'Waiting for your decision…'
  try {
    await bus.requestPermission({ app: 'notes', scope, reason: `Find notes about "${topic.value}" for the agenda` })
    await find()
  } catch (error) {
    status.textContent = error instanceof BusError ? `${error.code}: ${error.message}` : String(error)
  }
}

async function openInNotes() {
  await bus.openTile('notes', { q: topic.value })
}

mount(
  el('form', { class: 'row', onsubmit: find }, topic, el('button', { type: 'submit', class: 'find' }, 'Find notes')),
  ask,
  status,
  agenda,
  el('div', { class: 'row' }, el('button', { type: 'button', class: 'open-notes', onclick: openInNotes }, 'Open topic in Notes')),
)
