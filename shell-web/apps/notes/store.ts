/**
 * The notes app's data: an in-memory list with a monotonic revision. It lives
 * in the resident background (opaque-origin frames have no persistent storage).
 *
 * @example
 * const store = new NotesStore(SEED)
 * store.add('Roadmap', 'Q3 themes')
 * store.search('roadmap', 5)
 */
export interface Note {
  id: number
  title: string
  body: string
}

export const SEED: [string, string][] = [
  ['Roadmap Q3', 'Themes: offline sync, faster search, the tray quick-add.'],
  ['Standup notes', 'Ada: grants dialog. Lin: audit view. Blocked on nothing.'],
  ['Reading list', 'Capability-based security; the confused deputy; object capabilities in JS.'],
  ['Roadmap risks', 'Import performance on large notebooks; progress reporting granularity.'],
  ['Groceries', 'Coffee, oat milk, lemons.'],
  ['Design review', 'Private ports over window messages; one handshake per document.'],
]

export class NotesStore {
  #notes: Note[] = []
  #nextId = 1
  revision = 0

  constructor(seed: [string, string][] = []) {
    for (const [title, body] of seed) this.#notes.push({ id: this.#nextId++, title, body })
  }

  add(title: string, body: string): Note {
    const note = { id: this.#nextId++, title, body }
    this.#notes.push(note)
    this.revision++
    return note
  }

  /** All notes as a JSON file: `{ notes: [{ title, body }] }`, oldest first. */
  exportFile(): ArrayBuffer {
    const text = JSON.stringify({ notes: this.#notes.map(({ title, body }) => ({ title, body })) }, null, 2)
    return new TextEncoder().encode(text).buffer as ArrayBuffer
  }

  /** Adds the notes of an exported file (at most 500); throws on anything else. */
  importFile(file: ArrayBuffer): number {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(file))
    const notes = (parsed as { notes?: unknown })?.notes
    if (!Array.isArray(notes) || notes.length > 500) throw new Error('expected { notes: [{ title, body }] } with at most 500 notes')
    const valid = notes.filter((n): n is { title: string; body?: string } => typeof n?.title === 'string' && n.title.length > 0 && n.title.length <= 200 && (n.body === undefined || typeof n.body === 'string'))
    if (valid.length !== notes.length) throw new Error('every note needs a title (1–200 characters) and a string body')
    for (const n of valid) this.add(n.title, (n.body ?? '').slice(0, 10_000))
    return valid.length
  }

  get size(): number {
    return this.#notes.length
  }

  list(): Note[] {
    return this.#notes.slice().reverse()
  }

  search(query: string, limit: number): { id: number; title: string; snippet: string }[] {
    const q = query.trim().toLowerCase()
    if (!q) return []
    return this.list()
      .filter((n) => n.title.toLowerCase().includes(q) || n.body.toLowerCase().includes(q))
      .slice(0, limit)
      .map((n) => ({ id: n.id, title: n.title, snippet: n.body.slice(0, 80) }))
  }
}
