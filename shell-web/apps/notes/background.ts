/**
 * Notes, resident: owns the notes and exposes them as tools. After every
 * change it publishes a revision so the app's tile and tray re-fetch, and
 * shows the number of notes on its tray button. Export and file import carry
 * the file as an attachment.
 */
import { NotesStore, SEED } from './store.ts'
import { NOTES_TOOLS } from './tools.ts'
import { exposeTool, publishAppStateChange, setTrayBadge, withAttachment } from '../../sdk/index.ts'

const store = new NotesStore(SEED)
const badge = () => void setTrayBadge(Math.min(store.size, 9_999)).catch((error) => console.warn('tray badge', error))
const changed = () => {
  void publishAppStateChange('notes', store.revision)
  badge()
}
badge()

exposeTool<{ query: string; limit?: number }, unknown>('notes_search', NOTES_TOOLS.notes_search, ({ query, limit }) => ({ matches: store.search(query, limit ?? 10) }))

exposeTool('notes_list', NOTES_TOOLS.notes_list, () => ({ revision: store.revision, notes: store.list() }))

exposeTool<{ title: string; body?: string }, unknown>('notes_add', NOTES_TOOLS.notes_add, ({ title, body }) => {
  const note = store.add(title, body ?? '')
  changed()
  return { id: note.id, revision: store.revision }
})

const TOPICS = ['roadmap', 'meeting', 'research', 'idea', 'follow-up']

exposeTool<{ count?: number; delayMs?: number }, unknown>('notes_import', NOTES_TOOLS.notes_import, async ({ count = 60, delayMs = 40 }, context) => {
  const batch = Math.max(1, Math.ceil(count / 10))
  let imported = 0
  while (imported < count) {
    if (context.signal.aborted) throw new Error('import cancelled')
    for (let i = 0; i < batch && imported < count; i++, imported++) {
      const topic = TOPICS[imported % TOPICS.length]!
      store.add(`Imported ${topic} #${imported + 1}`, `Sample ${topic} note imported in bulk.`)
    }
    context.reportProgress({ phase: 'importing', completed: imported, total: count })
    await new Promise((resolve) => setTimeout(resolve, delayMs))
  }
  changed()
  return { imported, revision: store.revision }
})

exposeTool('notes_export', NOTES_TOOLS.notes_export, () => {
  const file = store.exportFile()
  return withAttachment({ notes: store.size, bytes: file.byteLength }, file)
})

exposeTool<Record<string, never>, unknown>('notes_import_file', NOTES_TOOLS.notes_import_file, (_args, context) => {
  if (!context.attachment) throw new Error('attach the file to import')
  const imported = store.importFile(context.attachment)
  changed()
  return { imported, revision: store.revision }
})
