/**
 * An upload read as it arrives (one file, or a tar archive), never held whole. Each file's bytes are
 * hashed as they come and cut into the artifact store's 1 MiB chunk rows under a staging key
 * (artifacts.ts `stage`); the limits are checked as the bytes arrive, against the tree as it is
 * then (a file past `fileBytes`: `FILE_TOO_LARGE`; the tree past its files or bytes:
 * `WORKSPACE_FULL`), so a refusal comes as soon as it is certain. Nothing is visible until
 * `commit`: one operation, decided whole against the tree of that moment (store.ts
 * `commitStaged`), whose transaction adopts the staged chunks under their hashes and records the
 * `workspace.changed` events after them. A refused upload's staged chunks are removed (`discard`);
 * a crash mid-upload leaves staged chunks that nothing names, swept when the object starts.
 *
 * What one upload holds in memory: one chunk being filled, the piece of the stream being read, and
 * a path, a size and a hash per file (at most `WORKSPACE_TAR_ENTRIES`).
 */
import { createHash } from 'node:crypto'
import { type ArtifactStore, CHUNK_BYTES, stagingKey } from '../ledger/artifacts.ts'
import { WORKSPACE_LIMITS } from '../core/limits.ts'
import type { Committed } from './store.ts'
import { readTarStream } from './tar.ts'
import { checkTotals, fileTooLarge, type Totals, type TreeLimits, type TreeReader } from './tree.ts'

/** A file whose bytes are staged: where its chunks are, and the content id they hash to. */
export interface StagedFile {
  path: string
  key: string
  content: string
  size: number
  chunks: number
}

/** What an upload reads and writes of its store. */
export interface UploadHost {
  artifacts: ArtifactStore
  reader(): TreeReader
  totals(): Totals
  commitStaged(files: StagedFile[], by: string): Committed
  limits?: TreeLimits
}

/**
 * @example
 * const upload = store.upload()
 * await upload.file('notes.txt', request.body!)
 * upload.commit('upload:ada')
 */
export class Upload {
  private readonly staged: StagedFile[] = []
  private current: StagedBlob | null = null
  private readonly sizes = new Map<string, number>()
  private readonly before: Totals
  private readonly after: Totals
  private readonly tree: TreeReader
  private readonly limits: TreeLimits

  constructor(private readonly host: UploadHost) {
    this.before = host.totals()
    this.after = { ...this.before }
    this.tree = host.reader()
    this.limits = host.limits ?? WORKSPACE_LIMITS
  }

  /** Reads one file's bytes from `stream` (`path` already normalized); a refusal discards what was staged. */
  async file(path: string, stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader()
    await this.refusing(async () => {
      try {
        this.begin(path, CHUNK_BYTES)
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          this.current!.write(value)
        }
        this.end()
      } finally {
        await reader.cancel().catch(() => {})
      }
    })
  }

  /** Reads every regular file of a tar archive from `stream`, each path through `pathOf` (which may refuse it). */
  async tar(stream: ReadableStream<Uint8Array>, pathOf: (path: string) => string): Promise<void> {
    await this.refusing(() =>
      readTarStream(stream, {
        file: (name, size) => this.begin(pathOf(name), Math.min(size, CHUNK_BYTES), size),
        data: (bytes) => this.current!.write(bytes),
        end: () => this.end(),
      }).then(() => {}),
    )
  }

  /** Commits every file read as one operation (`by`); refused whole, its staged chunks removed. */
  commit(by: string): Committed {
    return this.host.commitStaged(this.staged, by)
  }

  /** Removes every staged chunk of this upload (a refusal, or a caller giving up). */
  discard(): void {
    if (this.current) this.host.artifacts.discard(this.current.key)
    for (const file of this.staged) this.host.artifacts.discard(file.key)
    this.current = null
    this.staged.length = 0
  }

  private begin(path: string, buffer: number, declared?: number): void {
    if (declared !== undefined) this.grow(path, declared)
    this.current = new StagedBlob(this.host.artifacts, path, buffer, (size) => this.grow(path, size))
  }

  private end(): void {
    this.staged.push(this.current!.finish())
    this.current = null
  }

  private async refusing(read: () => Promise<void>): Promise<void> {
    try {
      await read()
    } catch (error) {
      this.discard()
      throw error
    }
  }

  /** The running check: the file at `path` now holds at least `size` bytes. */
  private grow(path: string, size: number): void {
    if (size > this.limits.fileBytes) throw fileTooLarge(path, size, this.limits)
    let previous = this.sizes.get(path)
    if (previous === undefined) {
      const existing = this.tree.get(path)
      if (existing === null) this.after.files++
      previous = existing?.size ?? 0
    }
    this.after.bytes += size - previous
    this.sizes.set(path, size)
    checkTotals(this.before, this.after, this.limits)
  }
}

/** One file's bytes as they arrive: hashed, and staged a chunk at a time. */
class StagedBlob {
  readonly key = stagingKey()
  private readonly hash = createHash('sha256')
  private readonly buffer: Uint8Array
  private filled = 0
  private chunks = 0
  private size = 0

  constructor(
    private readonly artifacts: ArtifactStore,
    private readonly path: string,
    buffer: number,
    private readonly grew: (size: number) => void,
  ) {
    this.buffer = new Uint8Array(Math.max(1, buffer))
  }

  write(bytes: Uint8Array): void {
    this.size += bytes.byteLength
    this.grew(this.size)
    this.hash.update(bytes)
    for (let offset = 0; offset < bytes.byteLength; ) {
      const piece = bytes.subarray(offset, offset + this.buffer.byteLength - this.filled)
      this.buffer.set(piece, this.filled)
      this.filled += piece.byteLength
      offset += piece.byteLength
      if (this.filled === this.buffer.byteLength) this.flush()
    }
  }

  finish(): StagedFile {
    // An empty file is one empty chunk, as `ArtifactStore.put` stores it.
    if (this.filled > 0 || this.chunks === 0) this.flush()
    return { path: this.path, key: this.key, content: this.hash.digest('hex'), size: this.size, chunks: this.chunks }
  }

  private flush(): void {
    this.artifacts.stage(this.key, this.chunks++, this.buffer.subarray(0, this.filled))
    this.filled = 0
  }
}
