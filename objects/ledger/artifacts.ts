/**
 * Content-addressed blob store (spec §1.4). A blob is keyed by its SHA-256 and
 * split into chunks below SQLite's 2 MB row limit, so any size up to the
 * object's storage fits. Putting the same bytes twice is a no-op.
 *
 * A blob whose bytes arrive as a stream (a workspace upload) is staged: its chunks are written as
 * they come under a staging key (`staged:<id>`, never a hex hash), then `adopt`ed under the hash
 * once the last byte is read, in the transaction that records what names it, or `discard`ed when
 * the upload is refused. A crash mid-stream leaves staged chunks no artifact row names; `sweep`
 * removes them when the object starts, before any upload can be running.
 *
 * Statements go straight to `sql.exec` (the tables are `schema.ts`'s `artifact` and
 * `artifact_chunk`): every turn stores a few artifacts (its context baseline, the tools it
 * offered, large tool results), and building each query through drizzle cost more than running it.
 */
import { sha256Hex } from './hash.ts'

/** Bytes per chunk row: comfortably under the 2 MB row/BLOB limit. */
export const CHUNK_BYTES = 1024 * 1024

/** What `put` returns: the link to carry in an envelope's `artifacts` or `payloadRef`. */
export interface StoredArtifact {
  ref: string
  hash: string
  size: number
  kind?: string
}

const STAGED = 'staged:'
// ';' follows ':' in byte order: every staging key sorts between the two.
const STAGED_END = 'staged;'

/**
 * A new staging key for a blob whose bytes arrive as a stream.
 *
 * @example
 * stagingKey() // 'staged:0b6c…'
 */
export function stagingKey(): string {
  return `${STAGED}${crypto.randomUUID()}`
}

export class ArtifactStore {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Stores `bytes` under their hash. Call inside a transaction when it must
   * commit together with an envelope.
   *
   * @example
   * const { ref } = store.put(new TextEncoder().encode('evidence'), 'text/plain')
   */
  put(bytes: Uint8Array, kind?: string, hash = sha256Hex(bytes)): StoredArtifact {
    const chunks = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES))
    const inserted = this.sql.exec(
      'insert into artifact (hash, size, kind, chunks, time) values (?, ?, ?, ?, ?) on conflict do nothing',
      hash,
      bytes.byteLength,
      kind ?? null,
      chunks,
      Date.now(),
    ).rowsWritten
    if (inserted > 0) {
      for (let idx = 0; idx < chunks; idx++) {
        const data = bytes.subarray(idx * CHUNK_BYTES, (idx + 1) * CHUNK_BYTES)
        this.sql.exec('insert into artifact_chunk (hash, idx, data) values (?, ?, ?)', hash, idx, data as unknown as ArrayBuffer)
      }
    }
    return { ref: `sha256:${hash}`, hash, size: bytes.byteLength, ...(kind === undefined ? {} : { kind }) }
  }

  /**
   * Writes chunk `idx` of a staged blob (at most `CHUNK_BYTES`) under its staging key.
   *
   * @example
   * const key = stagingKey()
   * store.stage(key, 0, firstMiB)
   */
  stage(key: string, idx: number, data: Uint8Array): void {
    this.sql.exec('insert into artifact_chunk (hash, idx, data) values (?, ?, ?)', key, idx, data as unknown as ArrayBuffer)
  }

  /**
   * Makes a staged blob the artifact `hash` (its `chunks` staged under `key`): the chunks are
   * renamed to the hash, or dropped when the hash is stored already (an empty blob is one empty chunk, as `put` stores it). Call inside the transaction
   * that records what names the blob.
   */
  adopt(key: string, hash: string, size: number, chunks: number, kind?: string): void {
    const inserted = this.sql.exec('insert into artifact (hash, size, kind, chunks, time) values (?, ?, ?, ?, ?) on conflict do nothing', hash, size, kind ?? null, chunks, Date.now()).rowsWritten
    if (inserted === 0) this.discard(key)
    else this.sql.exec('update artifact_chunk set hash = ? where hash = ?', hash, key)
  }

  /** Removes a staged blob's chunks (a refused upload). */
  discard(key: string): void {
    this.sql.exec('delete from artifact_chunk where hash = ?', key)
  }

  /** Removes every staged chunk: on start, when no upload runs, what a crash mid-upload left. */
  sweep(): void {
    this.sql.exec('delete from artifact_chunk where hash >= ? and hash < ?', STAGED, STAGED_END)
  }

  /** The media type the blob was stored with (null: none given), or `undefined` when no blob has that hash. */
  kindOf(hash: string): string | null | undefined {
    const [row] = this.sql.exec<{ kind: string | null }>('select kind from artifact where hash = ?', hash).toArray()
    return row ? row.kind : undefined
  }

  /** The blob's bytes, or `null` when no blob has that hash. */
  get(hash: string): Uint8Array | null {
    const [row] = this.sql.exec<{ size: number; chunks: number }>('select size, chunks from artifact where hash = ?', hash).toArray()
    if (!row) return null
    if (row.chunks === 1) {
      // Each query returns its own copy of the blob: one chunk needs no second one.
      const [chunk] = this.sql.exec<{ data: ArrayBuffer }>('select data from artifact_chunk where hash = ? and idx = 0', hash).toArray()
      if (!chunk) throw new Error(`artifact ${hash} is missing chunk 0`)
      return new Uint8Array(chunk.data)
    }
    const out = new Uint8Array(row.size)
    let offset = 0
    // One chunk per query keeps memory at one chunk beyond the result.
    for (let idx = 0; idx < row.chunks; idx++) {
      const [chunk] = this.sql.exec<{ data: ArrayBuffer }>('select data from artifact_chunk where hash = ? and idx = ?', hash, idx).toArray()
      if (!chunk) throw new Error(`artifact ${hash} is missing chunk ${idx}`)
      const bytes = new Uint8Array(chunk.data)
      out.set(bytes, offset)
      offset += bytes.byteLength
    }
    return out
  }
}
