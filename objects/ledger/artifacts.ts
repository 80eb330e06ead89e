/**
 * Content-addressed blob store (spec §1.4). A blob is keyed by its SHA-256 and
 * split into chunks below SQLite's 2 MB row limit, so any size up to the
 * object's storage fits. Putting the same bytes twice is a no-op.
 */
import { asc, eq, sql } from 'drizzle-orm'
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite'
import { sha256Hex } from './hash.ts'
import { artifact, artifactChunk } from './schema.ts'

/** Bytes per chunk row: comfortably under the 2 MB row/BLOB limit. */
export const CHUNK_BYTES = 1024 * 1024

/** What `put` returns: the link to carry in an envelope's `artifacts` or `payloadRef`. */
export interface StoredArtifact {
  ref: string
  hash: string
  size: number
  kind?: string
}

export class ArtifactStore {
  constructor(private readonly db: DrizzleSqliteDODatabase<Record<string, unknown>>) {}

  /**
   * Stores `bytes` under their hash. Call inside a transaction when it must
   * commit together with an envelope.
   *
   * @example
   * const { ref } = store.put(new TextEncoder().encode('evidence'), 'text/plain')
   */
  put(bytes: Uint8Array, kind?: string, hash = sha256Hex(bytes)): StoredArtifact {
    const chunks = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES))
    const inserted = this.db
      .insert(artifact)
      .values({ hash, size: bytes.byteLength, kind: kind ?? null, chunks, time: Date.now() })
      .onConflictDoNothing()
      .returning({ hash: artifact.hash })
      .all()
    if (inserted.length > 0) {
      for (let idx = 0; idx < chunks; idx++) {
        const data = bytes.subarray(idx * CHUNK_BYTES, (idx + 1) * CHUNK_BYTES)
        this.db.insert(artifactChunk).values({ hash, idx, data: data as unknown as Buffer }).run()
      }
    }
    return { ref: `sha256:${hash}`, hash, size: bytes.byteLength, ...(kind === undefined ? {} : { kind }) }
  }

  /** The blob's bytes, or `null` when no blob has that hash. */
  get(hash: string): Uint8Array | null {
    const [row] = this.db.select().from(artifact).where(eq(artifact.hash, hash)).all()
    if (!row) return null
    const out = new Uint8Array(row.size)
    let offset = 0
    // One chunk per query keeps memory at one chunk beyond the result.
    for (let idx = 0; idx < row.chunks; idx++) {
      const [chunk] = this.db
        .select({ data: artifactChunk.data })
        .from(artifactChunk)
        .where(sql`${artifactChunk.hash} = ${hash} and ${artifactChunk.idx} = ${idx}`)
        .orderBy(asc(artifactChunk.idx))
        .all()
      if (!chunk) throw new Error(`artifact ${hash} is missing chunk ${idx}`)
      const bytes = new Uint8Array(chunk.data as unknown as ArrayBuffer)
      out.set(bytes, offset)
      offset += bytes.byteLength
    }
    return out
  }
}
