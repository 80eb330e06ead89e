/**
 * A workspace's RPC surface, each call authorized first: list, read (a byte or a line range),
 * upload (one file, or a tar archive as one operation, each read from a stream as it arrives:
 * upload.ts), download (the tree as tar, streamed page by page), and diff between two sequences.
 * A session answers its own workspace's calls with it; an orchestration the read calls of its
 * shared workspace (its `check` refuses anything but reading). Reading is for whoever may read the
 * owning object; writing a session's workspace is its owner's alone (as its config is). Every write is
 * one workspace decision: refused whole, with nothing written, for `FILE_TOO_LARGE`,
 * `WORKSPACE_FULL`, `PATH_INVALID` or `PATH_ESCAPE`.
 *
 * @example
 * const calls = new WorkspaceCalls({ workspace, check: (caller, action) => access.check(state, caller, action), owner: () => state.owner })
 * calls.list(caller, { dir: 'src' })
 */
import type { Caller } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'
import { MAX_PAGE } from '../core/limits.ts'
import { parseOrThrow } from '../core/validate.ts'
import { filePath, normalizePath } from './paths.ts'
import type { Committed, DiffPage, Listing, WorkspaceStore } from './store.ts'
import { tarStream } from './tar.ts'
import type { Upload } from './upload.ts'
import type { FileEntry } from './tree.ts'
import { DiffQuery, FileQuery, ListQuery, ReadQuery } from './queries.ts'

/** What the calls need of the session. */
export interface WorkspaceCallsHost {
  /** A session's workspace (objects/session/workspace/workspace.ts), or an orchestration's shared one (objects/orchestration/workspace.ts). */
  workspace: { store: WorkspaceStore; bytesOf(entry: FileEntry): Promise<Uint8Array> }
  /** Authorizes `caller` for `action` on the session (access.ts), or throws. */
  check(caller: Caller, action: string): void
  owner(): string
}

/** A file read back: its bytes (the range asked for), and what it is. */
export interface FileRead {
  path: string
  content: string
  size: number
  bytes: Uint8Array
  /** The byte range returned, `[start, end)`. */
  range: { start: number; end: number }
}

export class WorkspaceCalls {
  constructor(private readonly host: WorkspaceCallsHost) {}

  /** A page of the files under `dir` as of `at` (default: now). */
  list(caller: Caller, query: unknown): Listing {
    this.host.check(caller, 'read')
    const { dir, at, after, limit } = parseOrThrow(ListQuery, query ?? {}, 'INVALID_QUERY')
    return this.host.workspace.store.list(normalizePath(dir ?? ''), { ...(at === undefined ? {} : { at }), ...(after === undefined ? {} : { after: normalizePath(after) }), limit: limit ?? 100 })
  }

  /** One file (`path`) as of `at`, whole or a range: bytes `offset`/`length`, or lines `line`/`lines` (1-based). */
  async read(caller: Caller, query: unknown): Promise<FileRead> {
    this.host.check(caller, 'read')
    const q = parseOrThrow(ReadQuery, query ?? {}, 'INVALID_QUERY')
    const file = filePath(q.path)
    const entry = this.host.workspace.store.entry(file, q.at)
    if (entry === null) throw new NeuronError('FILE_NOT_FOUND', `no file at ${file}`, { status: 404, details: { path: file } })
    const bytes = await this.host.workspace.bytesOf(entry)
    let start = 0
    let end = bytes.byteLength
    if (q.offset !== undefined || q.length !== undefined) {
      start = Math.min(q.offset ?? 0, bytes.byteLength)
      end = q.length === undefined ? bytes.byteLength : Math.min(start + q.length, bytes.byteLength)
    } else if (q.line !== undefined || q.lines !== undefined) {
      ;[start, end] = lineRange(bytes, q.line ?? 1, q.lines ?? Number.MAX_SAFE_INTEGER)
    }
    return { path: file, content: entry.content, size: entry.size, bytes: bytes.subarray(start, end), range: { start, end } }
  }

  /** Writes one file (`path`) from a stream of its bytes, read as they arrive, as one operation by `upload:<caller>`. */
  upload(caller: Caller, query: unknown, body: ReadableStream<Uint8Array>): Promise<Committed> {
    return this.receive(body, caller, async (upload) => upload.file(filePath(parseOrThrow(FileQuery, query ?? {}, 'INVALID_QUERY').path), body))
  }

  /** Writes every file of a tar archive, read as it arrives, as one operation: all of them, or (any refused) none. */
  uploadTar(caller: Caller, archive: ReadableStream<Uint8Array>): Promise<Committed> {
    return this.receive(archive, caller, (upload) => upload.tar(archive, filePath))
  }

  /** The tree as of `at` as a tar archive, read one file at a time as the stream is pulled. */
  download(caller: Caller, query: unknown): ReadableStream<Uint8Array> {
    this.host.check(caller, 'read')
    const { dir, at } = parseOrThrow(ListQuery, query ?? {}, 'INVALID_QUERY')
    const workspace = this.host.workspace
    const root = normalizePath(dir ?? '')
    async function* files() {
      let after: string | undefined
      for (;;) {
        const page = workspace.store.list(root, { limit: MAX_PAGE, ...(at === undefined ? {} : { at }), ...(after === undefined ? {} : { after }) })
        for (const entry of page.entries) yield { path: entry.path, bytes: await workspace.bytesOf(entry) }
        if (page.next === null) return
        after = page.next
      }
    }
    return tarStream(files())
  }

  /** The paths that differ between two sequences, a page at a time. */
  diff(caller: Caller, query: unknown): DiffPage {
    this.host.check(caller, 'read')
    const { from, to, after, limit } = parseOrThrow(DiffQuery, query ?? {}, 'INVALID_QUERY')
    return this.host.workspace.store.diff(from, to, { ...(after === undefined ? {} : { after }), limit: limit ?? 100 })
  }

  /** An upload of the owner's: read by `read`, then committed; refused before its body is read, the body is cancelled. */
  private async receive(body: ReadableStream<Uint8Array>, caller: Caller, read: (upload: Upload) => Promise<void>): Promise<Committed> {
    try {
      this.writer(caller)
      const upload = this.host.workspace.store.upload()
      await read(upload)
      return upload.commit(`upload:${caller.id}`)
    } catch (error) {
      if (!body.locked) await body.cancel().catch(() => {})
      throw error
    }
  }

  private writer(caller: Caller): void {
    this.host.check(caller, 'configure')
    if (caller.id !== this.host.owner()) throw new NeuronError('WORKSPACE_OWNER_ONLY', "only the session's owner writes its workspace; a share holder may read it", { status: 403 })
  }
}

/** The byte range `[start, end)` of `count` lines from the 1-based line `first`. */
function lineRange(bytes: Uint8Array, first: number, count: number): [number, number] {
  let line = 1
  let start = first <= 1 ? 0 : bytes.byteLength
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i] !== 0x0a) continue
    line++
    if (line === first) start = i + 1
    if (line === first + count) return [start, i + 1]
  }
  return [start, bytes.byteLength]
}
