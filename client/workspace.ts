/**
 * A session's workspace, as the client sees it (docs/workspace.md): list its files, read one
 * (whole, a byte range or a line range, at any sequence), upload one file or a tar archive (the
 * session's owner only; refused whole past a limit), download the tree as tar, and the paths that
 * differ between two sequences.
 */
import type { Http } from './http.ts'

/** A file as the workspace lists it: its path, content id (SHA-256 hex) and size. */
export interface WorkspaceFile {
  path: string
  content: string
  size: number
}

/** What an upload recorded: one change per path it changed (none when the bytes were there), and the totals after. */
export interface WorkspaceCommitted {
  changes: { path: string; before: string | null; after: string | null; size: number; by: string; seq: number }[]
  totals: { files: number; bytes: number }
}

/** A page of the paths that differ between two sequences. */
export interface WorkspaceDiff {
  differences: { path: string; before: string | null; after: string | null }[]
  next: number | null
}

function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(values)) if (value !== undefined) params.set(key, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/**
 * What an upload sends: bytes, a `Blob` (a `File`), a `ReadableStream` of bytes, or an async
 * iterable of byte chunks. The last two stream: each chunk goes as it is produced, nothing is
 * gathered first, and the server reads it as it arrives. A stream is read once: an upload that
 * fails after it began cannot be sent again from the same stream (see `WorkspaceHandle.upload`).
 */
export type UploadBody = Uint8Array | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>

/**
 * Reading a workspace: a session's, or an orchestration's shared one (`neuron.orchestration(id).workspace`).
 *
 * @example
 * const { entries } = await neuron.orchestration('o1').workspace.list({ dir: 'notes' })
 */
export class WorkspaceReader {
  protected readonly http: Http
  protected readonly path: string

  constructor(http: Http, ownerPath: string) {
    this.http = http
    this.path = `${ownerPath}/workspace`
  }

  /** A page of the files under `dir` (default the root) as of `at`, in path order; `next` continues. */
  list(options: { dir?: string; at?: number; after?: string; limit?: number } = {}): Promise<{ entries: WorkspaceFile[]; next: string | null }> {
    return this.http.json('GET', `${this.path}${query(options)}`)
  }

  /** One file as of `at`: whole, a byte range (`offset`, `length`) or a line range (`line`, `lines`, 1-based). */
  async read(path: string, options: { at?: number; offset?: number; length?: number; line?: number; lines?: number } = {}): Promise<{ bytes: Uint8Array; text: string; content: string; size: number }> {
    const res = await this.http.send('GET', `${this.path}/file${query({ path, ...options })}`)
    const bytes = new Uint8Array(await res.arrayBuffer())
    return { bytes, text: new TextDecoder().decode(bytes), content: (res.headers.get('etag') ?? '').replace(/"/g, ''), size: Number(res.headers.get('x-file-size')) }
  }

  /** The tree (or `dir`) as of `at`, as the bytes of a tar archive. */
  async download(options: { dir?: string; at?: number } = {}): Promise<Uint8Array> {
    return new Uint8Array(await (await this.http.send('GET', `${this.path}/tar${query(options)}`)).arrayBuffer())
  }

  /** The paths that differ between sequences `from` and `to` (default now). */
  diff(from: number, options: { to?: number; after?: number; limit?: number } = {}): Promise<WorkspaceDiff> {
    return this.http.json('GET', `${this.path}/diff${query({ from, ...options })}`)
  }
}

/**
 * A session's workspace: reading it, and the owner's uploads.
 *
 * @example
 * const ws = neuron.session('demo').workspace
 * await ws.upload('notes.txt', new TextEncoder().encode('hello\n'))
 * await ws.uploadTar(createReadStream('src.tar')) // a Node stream is an async iterable: streamed
 * const { text } = await ws.read('notes.txt', { line: 1, lines: 1 })
 */
export class WorkspaceHandle extends WorkspaceReader {
  constructor(http: Http, sessionPath: string) {
    super(http, sessionPath)
  }

  /**
   * Writes one file (the owner only): `FILE_TOO_LARGE`, `WORKSPACE_FULL`, `PATH_INVALID`, `PATH_ESCAPE`
   * write nothing. The client never retries an upload itself: a failed one wrote nothing, and
   * bytes or a `Blob` can be sent again as they are (the same bytes again record no change); a
   * stream cannot, its error says `details.replayable: false`, and the caller opens a new one.
   */
  upload(path: string, body: UploadBody): Promise<WorkspaceCommitted> {
    return this.#send(`${this.path}/file${query({ path })}`, body)
  }

  /** Writes every file of a tar archive as one operation: all, or (any refused) none. Streams as `upload` does. */
  uploadTar(archive: UploadBody): Promise<WorkspaceCommitted> {
    return this.#send(`${this.path}/tar`, archive)
  }

  async #send(path: string, body: UploadBody): Promise<WorkspaceCommitted> {
    return (await (await this.http.send('PUT', path, uploadBody(body))).json()) as WorkspaceCommitted
  }
}

/** An upload's body as fetch takes it: bytes and blobs as they are, an async iterable as a stream pulled one chunk at a time. */
function uploadBody(body: UploadBody): Uint8Array | Blob | ReadableStream<Uint8Array> {
  if (body instanceof Uint8Array || body instanceof Blob || body instanceof ReadableStream) return body
  const chunks = body[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    async cancel(reason) {
      await chunks.return?.(reason)
    },
  })
}
