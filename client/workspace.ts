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
 * @example
 * const ws = neuron.session('demo').workspace
 * await ws.upload('notes.txt', new TextEncoder().encode('hello\n'))
 * const { text } = await ws.read('notes.txt', { line: 1, lines: 1 })
 */
export class WorkspaceHandle {
  readonly #http: Http
  readonly #path: string

  constructor(http: Http, sessionPath: string) {
    this.#http = http
    this.#path = `${sessionPath}/workspace`
  }

  /** A page of the files under `dir` (default the root) as of `at`, in path order; `next` continues. */
  list(options: { dir?: string; at?: number; after?: string; limit?: number } = {}): Promise<{ entries: WorkspaceFile[]; next: string | null }> {
    return this.#http.json('GET', `${this.#path}${query(options)}`)
  }

  /** One file as of `at`: whole, a byte range (`offset`, `length`) or a line range (`line`, `lines`, 1-based). */
  async read(path: string, options: { at?: number; offset?: number; length?: number; line?: number; lines?: number } = {}): Promise<{ bytes: Uint8Array; text: string; content: string; size: number }> {
    const res = await this.#http.send('GET', `${this.#path}/file${query({ path, ...options })}`)
    const bytes = new Uint8Array(await res.arrayBuffer())
    return { bytes, text: new TextDecoder().decode(bytes), content: (res.headers.get('etag') ?? '').replace(/"/g, ''), size: Number(res.headers.get('x-file-size')) }
  }

  /** Writes one file (the owner only): `FILE_TOO_LARGE`, `WORKSPACE_FULL`, `PATH_INVALID`, `PATH_ESCAPE` write nothing. */
  upload(path: string, bytes: Uint8Array): Promise<WorkspaceCommitted> {
    return this.#json('PUT', `${this.#path}/file${query({ path })}`, bytes)
  }

  /** Writes every file of a tar archive as one operation: all, or (any refused) none. */
  uploadTar(archive: Uint8Array): Promise<WorkspaceCommitted> {
    return this.#json('PUT', `${this.#path}/tar`, archive)
  }

  /** The tree (or `dir`) as of `at`, as the bytes of a tar archive. */
  async download(options: { dir?: string; at?: number } = {}): Promise<Uint8Array> {
    return new Uint8Array(await (await this.#http.send('GET', `${this.#path}/tar${query(options)}`)).arrayBuffer())
  }

  /** The paths that differ between sequences `from` and `to` (default now). */
  diff(from: number, options: { to?: number; after?: number; limit?: number } = {}): Promise<WorkspaceDiff> {
    return this.#http.json('GET', `${this.#path}/diff${query({ from, ...options })}`)
  }

  async #json<T>(method: string, path: string, body: Uint8Array): Promise<T> {
    return (await (await this.#http.send(method, path, body)).json()) as T
  }
}
