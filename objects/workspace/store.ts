/**
 * The workspace over an object's SQLite: blobs in the ledger's artifact store, changes as
 * `workspace.changed` events on the workspace's own topic, and the `workspace_file` index
 * (schema.ts) folded from them in the same synchronous transaction, so the index is always at the
 * log's head and a crash leaves each operation either wholly written or not at all.
 *
 * What each call touches (rows read) and writes (billed rows, in a session's log: an event is its
 * row plus its id index entry; the artifact tables have a text key beside the rowid, so a blob is 2
 * rows plus 2 per 1 MiB chunk):
 * - `entry` / `read` at any sequence: one index seek (+ the blob's chunks for `read`).
 * - `list`: two seeks per path under the prefix, in path order, one page at a time.
 * - `commit`: per changed path, 2 (event) + 1 (index row) + the blob's rows when its bytes are new
 *   (4 for a file up to 1 MiB). A new small file: 7 rows; a delete: 3; a rename: 6 (the blob is
 *   shared, not copied); a write that changes nothing: 0.
 * - `diff` / `revertTo`: the events between the two sequences (a range of the topic's key) and two
 *   seeks per event; `revertTo` then commits like any operation.
 * - `totals`: read once per storage (a seek per path), then carried forward by every commit.
 *
 * Only a `WorkspaceStore` writes `workspace_file` (its carried totals rest on it, as the ledger's
 * carried sequence rests on only a ledger writing `log`).
 */
import type { ArtifactStore } from '../ledger/artifacts.ts'
import { sha256Hex } from '../ledger/hash.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { MAX_PAGE } from '../core/limits.ts'
import { type StagedFile, Upload } from './upload.ts'
import { type BlobRef, type Change, decide, type Decision, type Difference, type Edit, type FileEntry, renameEdits, type Totals, type TreeLimits, type TreeReader, WORKSPACE_CHANGED } from './tree.ts'

/** Where the workspace's events go. `record` is synchronous so it commits with the index rows. */
export interface WorkspaceLog {
  /** Appends one change and returns its sequence. */
  record(change: Change): number
  /**
   * The workspace's changes with `after < seq ≤ to`, in sequence order, at most `limit`, and the
   * sequence to continue after (null at `to` or the end; a page may hold fewer than `limit`).
   */
  changes(after: number, to: number, limit: number): { items: { seq: number; change: Change }[]; next: number | null }
}

/**
 * The log on a ledger topic, each event chained to the previous one (`parent`), so two identical
 * changes (a file written, deleted and written again by one call) are two events. `author` may
 * be read at each event, and `also` adds fields to its payload: an orchestration's shared
 * workspace names the package that writes (a commit is synchronous, so no other interleaves).
 *
 * @example
 * const log = ledgerLog(ledger, `${topic}.workspace`, 'object:session')
 */
export function ledgerLog(ledger: Ledger, topic: string, author: string | (() => string), also: () => Record<string, string> = () => ({})): WorkspaceLog {
  let parent: string | null | undefined
  return {
    record(change) {
      parent ??= ledger.latest(topic)?.id ?? null
      const { envelope } = ledger.append({ topic, type: WORKSPACE_CHANGED, author: typeof author === 'string' ? author : author(), parent, payload: { ...change, ...also() } })
      parent = envelope.id
      return envelope.seq
    },
    changes(after, to, limit) {
      const page = ledger.byTopic(topic, { after, limit })
      const items = page.items.filter((item) => item.seq <= to && item.type === WORKSPACE_CHANGED).map((item) => ({ seq: item.seq, change: item.payload as unknown as Change }))
      const past = page.items.some((item) => item.seq > to)
      return { items, next: past || page.next === null || page.next >= to ? null : page.next }
    },
  }
}

/** A file written by an operation: its bytes, or `null` to delete it. */
export interface FileWrite {
  path: string
  bytes: Uint8Array | null
}

/** What a commit did: the changes and the sequence each was recorded at. */
export interface Committed {
  changes: (Change & { seq: number })[]
  totals: Totals
}

/** A page of a listing: entries in path order, and the path to continue after (or null). */
export interface Listing {
  entries: FileEntry[]
  next: string | null
}

/** A page of a diff: differences, and the sequence to continue after (or null). */
export interface DiffPage {
  differences: Difference[]
  next: number | null
}

const totalsOf = new WeakMap<SqlStorage, Totals>()
const HEAD = Number.MAX_SAFE_INTEGER

/**
 * @example
 * const store = new WorkspaceStore(ctx.storage, ledger.artifacts, ledgerLog(ledger, `${topic}.workspace`, 'object:session'))
 * store.commit([{ path: 'a.txt', bytes: new TextEncoder().encode('hi') }], toolCallId)
 * store.read('a.txt') // Uint8Array [104, 105]
 */
export class WorkspaceStore {
  private readonly sql: SqlStorage

  constructor(
    private readonly storage: DurableObjectStorage,
    readonly artifacts: ArtifactStore,
    private readonly log: WorkspaceLog,
    readonly limits?: TreeLimits,
  ) {
    this.sql = storage.sql
  }

  /** The file at `path` as of sequence `at` (default: now), or null. */
  entry(path: string, at = HEAD): FileEntry | null {
    const [row] = this.sql.exec<{ content: string | null; size: number }>('select content, size from workspace_file where path = ? and seq <= ? order by seq desc limit 1', path, at).toArray()
    return row && row.content !== null ? { path, content: row.content, size: row.size } : null
  }

  /** The bytes of the file at `path` as of `at`, or null. */
  read(path: string, at = HEAD): Uint8Array | null {
    const entry = this.entry(path, at)
    if (entry === null) return null
    const bytes = this.artifacts.get(entry.content)
    if (bytes === null) throw new Error(`workspace blob ${entry.content} of ${path} is missing`)
    return bytes
  }

  /** The tree as a decision reads it, as of `at`. */
  reader(at = HEAD): TreeReader {
    return { get: (path) => this.entry(path, at), under: (dir, limit) => this.list(dir, { at, limit }).entries.map((entry) => entry.path) }
  }

  /**
   * Files under `dir` (`''`: all) as of `at`, in path order, after the path `after`.
   *
   * @example
   * let page = store.list('src', { limit: 100 })
   * while (page.next) page = store.list('src', { after: page.next, limit: 100 })
   */
  list(dir: string, options: { at?: number; after?: string; limit?: number } = {}): Listing {
    const at = options.at ?? HEAD
    const limit = Math.min(options.limit ?? 100, MAX_PAGE)
    const low = dir === '' ? '' : `${dir}/`
    // '0' follows '/' in byte order: every path under `dir/` sorts below `dir0`.
    const high = dir === '' ? null : `${dir}0`
    let cursor = options.after !== undefined && options.after > low ? options.after : low
    let inclusive = options.after === undefined || options.after <= low
    const entries: FileEntry[] = []
    for (;;) {
      const [row] = this.sql
        .exec<{ path: string }>(
          `select path from workspace_file where path ${inclusive ? '>=' : '>'} ? ${high === null ? '' : 'and path < ?'} order by path limit 1`,
          ...(high === null ? [cursor] : [cursor, high]),
        )
        .toArray()
      if (!row) return { entries, next: null }
      cursor = row.path
      inclusive = false
      const entry = this.entry(row.path, at)
      if (entry === null) continue
      if (entries.length === limit) return { entries, next: entries[entries.length - 1]!.path }
      entries.push(entry)
    }
  }

  /** How many files and bytes the tree holds now: read once per storage, then carried by commits. */
  totals(): Totals {
    let totals = totalsOf.get(this.sql)
    if (!totals) {
      totals = { files: 0, bytes: 0 }
      let after: string | undefined
      for (;;) {
        const page = this.list('', { limit: MAX_PAGE, ...(after === undefined ? {} : { after }) })
        for (const entry of page.entries) {
          totals.files++
          totals.bytes += entry.size
        }
        if (page.next === null) break
        after = page.next
      }
      totalsOf.set(this.sql, totals)
    }
    return { ...totals }
  }

  /** Decides an operation without writing anything (what `commit` would do, or its refusal). */
  decide(edits: Edit[], by: string): Decision {
    return decide(this.reader(), this.totals(), edits, by, this.limits)
  }

  /**
   * Writes an operation's files (bytes, or null to delete) as one decision: all of it, or, when any
   * part is refused, nothing (tree.ts `decide` lists the codes).
   *
   * @example
   * store.commit([{ path: 'a.txt', bytes: null }, { path: 'b.txt', bytes }], 'call_7')
   */
  commit(writes: FileWrite[], by: string): Committed {
    const blobs = new Map<string, Uint8Array>()
    const edits: Edit[] = writes.map(({ path, bytes }) => {
      if (bytes === null) return { path, after: null }
      const content = sha256Hex(bytes)
      blobs.set(content, bytes)
      return { path, after: { content, size: bytes.byteLength } }
    })
    return this.commitEdits(edits, by, (content) => {
      this.artifacts.put(blobs.get(content)!, 'workspace', content)
    })
  }

  /** An upload read as it arrives, its bytes staged until it commits (upload.ts). */
  upload(): Upload {
    return new Upload(this)
  }

  /**
   * Commits files whose bytes are staged (upload.ts) as one decision: the transaction adopts each
   * new blob's chunks under its hash, then records the change that names it. Staged blobs nothing
   * adopts (bytes already stored, a refusal) are removed.
   */
  commitStaged(files: StagedFile[], by: string): Committed {
    const byContent = new Map<string, StagedFile>()
    for (const file of files) if (!byContent.has(file.content)) byContent.set(file.content, file)
    const edits: Edit[] = files.map(({ path, content, size }) => ({ path, after: { content, size } }))
    try {
      return this.commitEdits(edits, by, (content) => {
        const file = byContent.get(content)!
        byContent.delete(content)
        this.artifacts.adopt(file.key, content, file.size, file.chunks, 'workspace')
      })
    } finally {
      for (const file of byContent.values()) this.artifacts.discard(file.key)
    }
  }

  /** Renames a file: the destination takes the source's blob (no bytes are copied). */
  rename(from: string, to: string, by: string): Committed {
    return this.commitEdits(renameEdits(this.reader(), from, to), by, () => {})
  }

  /**
   * Takes the tree back to what it was at sequence `at` (a truncation), as new changes: every path
   * changed since then gets its content at `at` again. Blobs are shared, none written.
   */
  revertTo(at: number, by: string): Committed {
    const edits: Edit[] = []
    let after = at
    for (;;) {
      const page = this.diff(at, HEAD, { after, limit: MAX_PAGE })
      for (const difference of page.differences) {
        const then = this.entry(difference.path, at)
        edits.push({ path: difference.path, after: then && ({ content: then.content, size: then.size } satisfies BlobRef) })
      }
      if (page.next === null) break
      after = page.next
    }
    return this.commitEdits(edits, by, () => {})
  }

  /**
   * The paths that differ between sequences `from` and `to`, each once (at its last change up to
   * `to`), paged by the sequence of that change.
   *
   * @example
   * const { differences } = store.diff(12, 40) // [{ path: 'a.txt', before: null, after: '2cf2…' }]
   */
  diff(from: number, to = HEAD, options: { after?: number; limit?: number } = {}): DiffPage {
    const limit = Math.min(options.limit ?? 100, MAX_PAGE)
    const differences: Difference[] = []
    let after = Math.max(options.after ?? from, from)
    for (;;) {
      const page = this.log.changes(after, to, limit)
      for (const { seq, change } of page.items) {
        after = seq
        // Only a path's last change up to `to` speaks for it: each path appears once.
        const [last] = this.sql.exec<{ seq: number }>('select max(seq) as seq from workspace_file where path = ? and seq <= ?', change.path, to).toArray()
        if (last?.seq !== seq) continue
        const before = this.entry(change.path, from)?.content ?? null
        if (before !== change.after) differences.push({ path: change.path, before, after: change.after })
        if (differences.length === limit) return { differences, next: seq }
      }
      if (page.next === null) return { differences, next: null }
      after = page.next
    }
  }

  /**
   * A fork's starting tree: `record` appends the fork's one event, and each entry of the origin's
   * tree at the fork point becomes an index row at sequence 0 (the tree before any change of this
   * workspace's own), naming the origin's content ids: no blob rows, one row per file. Only into
   * an empty workspace (`WORKSPACE_NOT_EMPTY` otherwise).
   *
   * @example
   * store.inherit(entries, () => ledger.append({ topic, type: 'workspace.forked', author, payload: { from, at } }).seq)
   */
  inherit(entries: FileEntry[], record: () => number): void {
    if (this.list('', { limit: 1 }).entries.length > 0) throw new Error('a workspace inherits a tree only while it is empty')
    this.storage.transactionSync(() => {
      record()
      for (const entry of entries) this.sql.exec('insert into workspace_file (path, seq, content, size) values (?, 0, ?, ?)', entry.path, entry.content, entry.size)
    })
    totalsOf.delete(this.sql)
  }

  /** Decides `edits` and writes them: `store` writes a new content's bytes before the change naming it is recorded. */
  private commitEdits(edits: Edit[], by: string, store: (content: string) => void): Committed {
    const decision = this.decide(edits, by)
    if (decision.changes.length === 0) return { changes: [], totals: decision.totals }
    const written = new Set<string>()
    const changes = this.storage.transactionSync(() =>
      decision.changes.map((change) => {
        if (change.after !== null && !written.has(change.after)) {
          written.add(change.after)
          store(change.after)
        }
        const seq = this.log.record(change)
        this.sql.exec('insert into workspace_file (path, seq, content, size) values (?, ?, ?, ?)', change.path, seq, change.after, change.size)
        return { ...change, seq }
      }),
    )
    totalsOf.set(this.sql, decision.totals)
    return { changes, totals: decision.totals }
  }
}
