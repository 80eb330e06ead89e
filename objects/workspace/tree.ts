/**
 * The workspace as a fold. A workspace is the sequence of its `workspace.changed` events; each says
 * one path went from one content id (a blob's SHA-256) to another, `null` meaning absent, and which
 * tool call did it. The tree at a sequence is the last change of every path up to it: nothing else
 * is state. This file holds the pure parts: what an operation changes (`decide`, with the limits and
 * the file/directory rules), the fold of a change (`MemoryTree`, the reference the stored index is
 * tested against), and the difference of two trees (`diffTrees`).
 *
 * A decision reads the tree through `TreeReader`, which answers one path or the first few paths under
 * a directory, so deciding touches only the rows it needs, whatever the tree's size; the stored
 * index (store.ts) answers each with one or two index seeks.
 *
 * One operation (a write, a rename, a whole patch, one shell command) is decided whole: every change
 * it makes is checked together, against the tree as the operation's own earlier edits leave it, and
 * it is refused whole (nothing written) when any part is refused.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'
import { WORKSPACE_LIMITS } from '../core/limits.ts'
import { ancestorsOf } from './paths.ts'

/** The event type of a change (on the workspace's topic). */
export const WORKSPACE_CHANGED = 'workspace.changed'

/** A file as the tree holds it: its path, its content id (SHA-256 hex of its bytes) and size. */
export interface FileEntry {
  path: string
  content: string
  size: number
}

/**
 * The payload of `workspace.changed`: `before` and `after` are content ids or `null` (absent);
 * `size` is the size of `after` (0 when absent), so the fold needs nothing but the events; `by` is
 * the tool call (or route) that made the change.
 */
export interface Change {
  path: string
  before: string | null
  after: string | null
  size: number
  by: string
}

/** How much the tree holds. */
export interface Totals {
  files: number
  bytes: number
}

/** A blob by its content id and size (the bytes are stored, or about to be). */
export interface BlobRef {
  content: string
  size: number
}

/** One intended edit of an operation: a file's new content, or `null` to delete it. */
export interface Edit {
  path: string
  after: BlobRef | null
}

/** What a decision reads. Paths are normalized workspace paths (paths.ts). */
export interface TreeReader {
  /** The file at `path`, or null. */
  get(path: string): FileEntry | null
  /** The first `limit` file paths strictly under directory `dir` (`''` = the root), in path order. */
  under(dir: string, limit: number): string[]
}

/** What an operation changes, in the order its paths were first touched, and the totals after it. */
export interface Decision {
  changes: Change[]
  totals: Totals
}

/** The limits a decision checks (`WORKSPACE_LIMITS` unless a test narrows them). */
export type TreeLimits = { [K in 'fileBytes' | 'files' | 'treeBytes']: number }

/**
 * Decides an operation's edits against the tree and its totals. Throws, having decided nothing:
 * `FILE_TOO_LARGE` (413), `WORKSPACE_FULL` (507: more files or bytes than the limits, when the
 * operation grows past them; an operation that shrinks the tree is always allowed),
 * `FILE_NOT_FOUND` (404: deleting what is absent), `NOT_A_DIRECTORY` (409: a file where a directory
 * of the path must be), `IS_A_DIRECTORY` (409: writing a file where files are below).
 * Edits that leave a path as it was produce no change.
 *
 * @example
 * const { changes } = decide(tree, totals, [{ path: 'a.txt', after: { content: hash, size: 3 } }], 'call_1')
 * // a rename: [{ path: 'a', after: null }, { path: 'b', after: { content, size } }]
 */
export function decide(tree: TreeReader, totals: Totals, edits: Edit[], by: string, limits: TreeLimits = WORKSPACE_LIMITS): Decision {
  const staged = new Map<string, BlobRef | null>()
  const base = new Map<string, FileEntry | null>()
  const current = (path: string): BlobRef | null => {
    if (staged.has(path)) return staged.get(path)!
    return baseOf(path)
  }
  const baseOf = (path: string): FileEntry | null => {
    if (!base.has(path)) base.set(path, tree.get(path))
    return base.get(path)!
  }
  // Per directory, how many staged paths below it are files and how many are deletions: carried as
  // each edit is staged, so asking about a directory costs its depth, not the operation's size.
  const stagedUnder = new Map<string, { files: number; deleted: number }>()
  const stage = (path: string, after: BlobRef | null) => {
    const previous = staged.has(path) ? staged.get(path)! : undefined
    staged.set(path, after)
    for (const dir of ancestorsOf(path)) {
      const counts = stagedUnder.get(dir) ?? { files: 0, deleted: 0 }
      if (previous !== undefined) previous === null ? counts.deleted-- : counts.files--
      after === null ? counts.deleted++ : counts.files++
      stagedUnder.set(dir, counts)
    }
  }
  const hasFilesUnder = (dir: string): boolean => {
    const counts = stagedUnder.get(dir)
    if (counts && counts.files > 0) return true
    // Staged deletions may hide the first stored files: ask for one more than they could hide.
    return tree.under(dir, (counts?.deleted ?? 0) + 1).some((path) => !staged.has(path) || staged.get(path) !== null)
  }
  for (const { path, after } of edits) {
    if (after === null) {
      if (current(path) === null) throw new NeuronError('FILE_NOT_FOUND', `no file at ${path}`, { status: 404, details: { path } })
    } else {
      if (after.size > limits.fileBytes) throw fileTooLarge(path, after.size, limits)
      for (const dir of ancestorsOf(path)) {
        if (current(dir) !== null) throw new NeuronError('NOT_A_DIRECTORY', `${dir} is a file, so ${path} cannot be written`, { status: 409, details: { path, file: dir } })
      }
      if (current(path) === null && hasFilesUnder(path)) throw new NeuronError('IS_A_DIRECTORY', `${path} is a directory`, { status: 409, details: { path } })
    }
    stage(path, after)
  }
  const changes: Change[] = []
  let { files, bytes } = totals
  for (const [path, after] of staged) {
    const before = baseOf(path)
    if ((before?.content ?? null) === (after?.content ?? null)) continue
    files += (after ? 1 : 0) - (before ? 1 : 0)
    bytes += (after?.size ?? 0) - (before?.size ?? 0)
    changes.push({ path, before: before?.content ?? null, after: after?.content ?? null, size: after?.size ?? 0, by })
  }
  checkTotals(totals, { files, bytes }, limits)
  return { changes, totals: { files, bytes } }
}

/** `FILE_TOO_LARGE`: `path` would hold `size` bytes, over the limit. */
export function fileTooLarge(path: string, size: number, limits: TreeLimits = WORKSPACE_LIMITS): NeuronError {
  return new NeuronError('FILE_TOO_LARGE', `${path} would be ${size} bytes; a file may hold ${limits.fileBytes}`, { status: 413, details: { path, size, limit: limits.fileBytes } })
}

/**
 * Throws `WORKSPACE_FULL` when the totals `after` an operation are over a limit and grew past the
 * totals `before` it (an operation that shrinks the tree is always allowed).
 *
 * @example
 * checkTotals(store.totals(), { files: 20_001, bytes: 10 }) // throws WORKSPACE_FULL
 */
export function checkTotals(before: Totals, after: Totals, limits: TreeLimits = WORKSPACE_LIMITS): void {
  if (after.files > limits.files && after.files > before.files) {
    throw new NeuronError('WORKSPACE_FULL', `the workspace would hold ${after.files} files; it may hold ${limits.files}`, { status: 507, details: { files: after.files, limit: limits.files } })
  }
  if (after.bytes > limits.treeBytes && after.bytes > before.bytes) {
    throw new NeuronError('WORKSPACE_FULL', `the workspace would hold ${after.bytes} bytes; it may hold ${limits.treeBytes}`, { status: 507, details: { bytes: after.bytes, limit: limits.treeBytes } })
  }
}

/** The edits of a rename: the source deleted, the destination given the same blob (nothing copied). */
export function renameEdits(tree: TreeReader, from: string, to: string): Edit[] {
  const source = tree.get(from)
  if (source === null) throw new NeuronError('FILE_NOT_FOUND', `no file at ${from}`, { status: 404, details: { path: from } })
  return [
    { path: from, after: null },
    { path: to, after: { content: source.content, size: source.size } },
  ]
}

/**
 * A tree held in memory, as the fold of its changes. The stored index is tested against it, and the
 * in-memory file port uses it; a session never holds its tree this way.
 *
 * @example
 * const tree = new MemoryTree()
 * for (const change of changes) tree.apply(change)
 */
export class MemoryTree implements TreeReader {
  private readonly files = new Map<string, FileEntry>()

  /** The fold's step: the path now holds `after`. */
  apply(change: Change): void {
    if (change.after === null) this.files.delete(change.path)
    else this.files.set(change.path, { path: change.path, content: change.after, size: change.size })
  }

  get(path: string): FileEntry | null {
    return this.files.get(path) ?? null
  }

  under(dir: string, limit: number): string[] {
    return this.entries(dir)
      .slice(0, limit)
      .map((entry) => entry.path)
  }

  /** Every file under `dir` (`''`: all), in path order. */
  entries(dir = ''): FileEntry[] {
    const prefix = dir === '' ? '' : `${dir}/`
    return [...this.files.values()].filter((entry) => entry.path.startsWith(prefix)).sort((a, b) => compareBytes(a.path, b.path))
  }

  totals(): Totals {
    let bytes = 0
    for (const entry of this.files.values()) bytes += entry.size
    return { files: this.files.size, bytes }
  }
}

/**
 * Paths in SQLite's order: by UTF-8 bytes (`BINARY` collation), which for well-formed strings is code
 * point order, not JavaScript's UTF-16 order.
 */
export function compareBytes(a: string, b: string): number {
  const x = [...a]
  const y = [...b]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (d !== 0) return d
  }
  return x.length - y.length
}

/** One path that differs between two trees. */
export interface Difference {
  path: string
  before: string | null
  after: string | null
}

/**
 * The difference of two trees given as path-ordered streams: a merge, holding one entry of each.
 *
 * @example
 * [...diffTrees(older.entries(), newer.entries())] // [{ path: 'a.txt', before: 'ab12…', after: null }]
 */
export function* diffTrees(before: Iterable<FileEntry>, after: Iterable<FileEntry>): Generator<Difference> {
  const a = before[Symbol.iterator]()
  const b = after[Symbol.iterator]()
  let x = a.next()
  let y = b.next()
  while (!x.done || !y.done) {
    const order = x.done ? 1 : y.done ? -1 : compareBytes(x.value.path, y.value.path)
    if (order < 0) {
      yield { path: x.value!.path, before: x.value!.content, after: null }
      x = a.next()
    } else if (order > 0) {
      yield { path: y.value!.path, before: null, after: y.value!.content }
      y = b.next()
    } else {
      if (x.value!.content !== y.value!.content) yield { path: x.value!.path, before: x.value!.content, after: y.value!.content }
      x = a.next()
      y = b.next()
    }
  }
}
