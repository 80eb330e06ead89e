/**
 * Notes tile: search, the full list (kept fresh by state invalidation), a
 * bulk import with a progress bar, importing a file and copying an export
 * (both carried as attachments; the copy goes through the trusted page's
 * clipboard action, within the click's activation). `?q=` is UI context only
 * (a prefilled query).
 */
import { BusError, createMsgBusClient, writeClipboardText } from '../../sdk/index.ts'
import { el, mount } from '../ui.ts'

interface Snapshot {
  revision: number
  notes: { id: number; title: string; body: string }[]
}

const bus = createMsgBusClient()
const BACKGROUND = 'app:notes:background'

const query = el('input', { type: 'search', placeholder: 'Search notes', name: 'q', value: new URLSearchParams(location.search).get('q') ?? '' })
const results = el('ul', { class: 'results' })
const list = el('ul', { class: 'notes' })
const revision = el('span', { class: 'muted' })
const bar = el('progress', { max: 1, value: 0, hidden: true })
const status = el('p', { class: 'status', role: 'status' })

async function search(event?: Event) {
  event?.preventDefault()
  try {
    const { matches } = await bus.callTool<{ matches: { title: string; snippet: string }[] }>({ target: BACKGROUND, name: 'notes_search', arguments: { query: query.value } })
    results.replaceChildren(...(matches.length ? matches.map((m) => el('li', {}, el('strong', {}, m.title), ' — ', m.snippet)) : [el('li', { class: 'muted' }, 'No matches.')]))
  } catch (error) {
    status.textContent = describe(error)
  }
}

async function importNotes() {
  bar.hidden = false
  bar.value = 0
  status.textContent = 'Importing…'
  try {
    const result = await bus.callTool<{ imported: number }>({ target: BACKGROUND, name: 'notes_import', arguments: { count: 60 } }, {
      timeout: 120,
      onProgress(value) {
        const p = value as { completed: number; total: number }
        bar.max = p.total
        bar.value = p.completed
        status.textContent = `Importing… ${p.completed}/${p.total}`
      },
    })
    status.textContent = `Imported ${result.imported} notes.`
  } catch (error) {
    status.textContent = describe(error)
  }
}

const file = el('input', { type: 'file', accept: 'application/json,.json', class: 'import-file', 'aria-label': 'Import a notes file', onchange: importFile })

async function importFile() {
  const chosen = file.files?.[0]
  if (!chosen) return
  try {
    const { imported } = await bus.callTool<{ imported: number }>({ target: BACKGROUND, name: 'notes_import_file', arguments: {} }, { attachment: await chosen.arrayBuffer() })
    status.textContent = `Imported ${imported} notes from ${chosen.name}.`
  } catch (error) {
    status.textContent = describe(error)
  }
  file.value = ''
}

async function copyExport() {
  try {
    const { result, attachment } = await bus.callToolWithAttachment<{ notes: number }>({ target: BACKGROUND, name: 'notes_export', arguments: {} })
    await writeClipboardText(new TextDecoder().decode(attachment))
    status.textContent = `Copied ${result.notes} notes as JSON.`
  } catch (error) {
    status.textContent = describe(error)
  }
}

/** Agent Mode: must run synchronously inside the click (the kernel checks focus and the click's activation). */
function letAgentSearch() {
  bus.requestAgentMode('notes_search').then(
    () => (status.textContent = 'The agent may now search your notes (disable it in the shell\u2019s Agent Mode panel).'),
    (error) => (status.textContent = describe(error)),
  )
}

function describe(error: unknown): string {
  return error instanceof BusError ? `${error.code}: ${error.message}` : String(error)
}

mount(
  el('form', { class: 'row', onsubmit: search }, query, el('button', { type: 'submit' }, 'Search')),
  results,
  el('div', { class: 'row' }, el('button', { type: 'button', class: 'import', onclick: importNotes }, 'Import sample notes'), bar),
  el('div', { class: 'row' }, file, el('button', { type: 'button', class: 'copy-export', onclick: copyExport }, 'Copy export')),
  el('div', { class: 'row' }, el('button', { type: 'button', class: 'agent-mode', onclick: letAgentSearch }, 'Let the agent search notes')),
  status,
  el('h3', {}, 'All notes ', revision),
  list,
)

let snapshotFailed = false
bus.followAppState<Snapshot>('notes', {
  load: () => bus.callTool<Snapshot>({ target: BACKGROUND, name: 'notes_list', arguments: {} }),
  apply(snapshot) {
    if (snapshotFailed) status.textContent = ''
    snapshotFailed = false
    revision.textContent = `(${snapshot.notes.length}, revision ${snapshot.revision})`
    list.replaceChildren(...snapshot.notes.slice(0, 50).map((n) => el('li', { 'data-note': n.id }, el('strong', {}, n.title), ' ', el('span', { class: 'muted' }, n.body))))
  },
  onError(error) {
    snapshotFailed = true
    status.textContent = describe(error)
  },
  pollMs: 15_000,
})
if (query.value) void search()
