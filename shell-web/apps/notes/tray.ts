/**
 * Notes tray popover: quick-add. The background publishes the new revision, so
 * the tile updates without the tray knowing it exists.
 */
import { BusError, createMsgBusClient } from '../../sdk/index.ts'
import { el, mount } from '../ui.ts'

const bus = createMsgBusClient()
const title = el('input', { name: 'title', placeholder: 'Title', required: true })
const body = el('textarea', { name: 'body', placeholder: 'Note', rows: 4 })
const status = el('p', { class: 'status', role: 'status' })

async function save(event: Event) {
  event.preventDefault()
  try {
    const { id } = await bus.callTool<{ id: number }>({ target: 'app:notes:background', name: 'notes_add', arguments: { title: title.value, body: body.value } })
    status.textContent = `Saved note #${id}.`
    title.value = body.value = ''
  } catch (error) {
    status.textContent = error instanceof BusError ? `${error.code}: ${error.message}` : String(error)
  }
}

mount(el('h3', {}, 'Quick note'), el('form', { class: 'stack', onsubmit: save }, title, body, el('button', { type: 'submit' }, 'Save')), status)
