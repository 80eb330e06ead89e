/**
 * Uploads read as they arrive (objects/workspace/upload.ts) over real Durable Object storage: a
 * file streamed in odd-sized pieces is stored in 1 MiB chunks and reads back whole; the limits
 * refuse as the bytes arrive, with the refused upload's staged chunks removed and nothing recorded;
 * the change is recorded only in the commit, after its chunks; bytes already stored leave no staged
 * chunk behind; and what a crash leaves staged is swept.
 */
import { describe, expect, it } from 'vitest'
import workspaceSql from '../../migrations/workspace/0000_workspace_file.sql'
import { NeuronError } from '../../objects/core/errors.ts'
import { stagingKey } from '../../objects/ledger/artifacts.ts'
import { sha256Hex } from '../../objects/ledger/hash.ts'
import type { Ledger } from '../../objects/ledger/ledger.ts'
import { ledgerLog, WorkspaceStore } from '../../objects/workspace/store.ts'
import { tarStream } from '../../objects/workspace/tar.ts'
import type { TreeLimits } from '../../objects/workspace/tree.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { countRows } from '../support/rows.ts'

const TOPIC = 'session.s1.workspace'
const MiB = 1024 * 1024

function withStore<T>(fn: (store: WorkspaceStore, ledger: Ledger, state: DurableObjectState) => Promise<T>, limits?: TreeLimits): Promise<T> {
  return withLedger(uniqueName('upload'), (ledger, state) => {
    state.storage.sql.exec(workspaceSql)
    return fn(new WorkspaceStore(state.storage, ledger.artifacts, ledgerLog(ledger, TOPIC, 'object:test'), limits), ledger, state)
  })
}

// Bytes are compared by hash: a deep equality over megabytes of a typed array takes seconds.

/** `bytes` as a stream of pieces of `piece` bytes (a network's arbitrary cuts). */
function pieces(bytes: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + piece))
      offset += piece
    },
  })
}

function patterned(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed) & 0xff
  return out
}

function archive(files: { path: string; bytes: Uint8Array }[]): ReadableStream<Uint8Array> {
  return tarStream(
    (async function* () {
      yield* files
    })(),
  )
}

function chunkRows(state: DurableObjectState): { staged: number; all: number } {
  const [row] = state.storage.sql.exec<{ staged: number; all: number }>("select count(*) filter (where hash like 'staged:%') as staged, count(*) as \"all\" from artifact_chunk").toArray()
  return row!
}

function events(ledger: Ledger): number {
  return ledger.byTopic(TOPIC, { limit: 1000 }).items.length
}

async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run
  } catch (error) {
    if (error instanceof NeuronError) return error.code
    throw error
  }
  throw new Error('not refused')
}

describe('an upload read as it arrives', () => {
  it('a file cut into odd pieces is stored in 1 MiB chunks and reads back whole', () =>
    withStore(async (store, ledger, state) => {
      const bytes = patterned(2.5 * MiB + 7)
      const upload = store.upload()
      await upload.file('big.bin', pieces(bytes, 300_001))
      // Staged, not yet visible: no event, no index row, the chunks under a staging key.
      expect(events(ledger)).toBe(0)
      expect(store.entry('big.bin')).toBeNull()
      expect(chunkRows(state)).toEqual({ staged: 3, all: 3 })
      const { changes } = upload.commit('upload:ada')
      expect(changes).toMatchObject([{ path: 'big.bin', after: sha256Hex(bytes), size: bytes.byteLength, by: 'upload:ada' }])
      expect(chunkRows(state)).toEqual({ staged: 0, all: 3 })
      expect(sha256Hex(store.read('big.bin')!)).toBe(sha256Hex(bytes))
    }))

  it('a tar archive: each file staged as it arrives, committed as one operation; an empty file too', () =>
    withStore(async (store) => {
      const files = [
        { path: 'src/a.txt', bytes: new TextEncoder().encode('alpha') },
        { path: 'empty', bytes: new Uint8Array(0) },
        { path: `deep/${'d'.repeat(120)}/c.bin`, bytes: patterned(MiB + 3, 5) },
      ]
      const upload = store.upload()
      await upload.tar(archive(files), (path) => path)
      expect(upload.commit('upload:ada').changes.map((c) => c.path)).toEqual(files.map((f) => f.path))
      for (const { path, bytes } of files) expect(sha256Hex(store.read(path)!)).toBe(sha256Hex(bytes))
    }))

  it('a file growing past the file limit is refused as its bytes arrive: its staged chunks removed, nothing recorded', () =>
    withStore(
      async (store, ledger, state) => {
        let sent = 0
        const endless = new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += 256 * 1024
            controller.enqueue(new Uint8Array(256 * 1024))
          },
        })
        expect(await refusal(store.upload().file('big.bin', endless))).toBe('FILE_TOO_LARGE')
        // Refused at the first piece past 2 MiB, not at the end of a stream that has none.
        expect(sent).toBeLessThanOrEqual(3 * MiB)
        expect(chunkRows(state)).toEqual({ staged: 0, all: 0 })
        expect(events(ledger)).toBe(0)
        expect(store.totals()).toEqual({ files: 0, bytes: 0 })
      },
      { fileBytes: 2 * MiB, files: 100, treeBytes: 64 * MiB },
    ))

  it('a tar growing past the tree limit is refused at the header that passes it; the files staged before are removed', () =>
    withStore(
      async (store, ledger, state) => {
        const files = [1, 2, 3].map((i) => ({ path: `f${i}.bin`, bytes: patterned(1.5 * MiB, i) }))
        expect(await refusal((async () => store.upload().tar(archive(files), (path) => path))())).toBe('WORKSPACE_FULL')
        expect(chunkRows(state)).toEqual({ staged: 0, all: 0 })
        expect(events(ledger)).toBe(0)
        // A declared size over the file limit is refused before any of its bytes.
        const big = [{ path: 'ok.txt', bytes: new Uint8Array(10) }, { path: 'huge.bin', bytes: new Uint8Array(2 * MiB + 1) }]
        expect(await refusal(store.upload().tar(archive(big), (path) => path))).toBe('FILE_TOO_LARGE')
        expect(chunkRows(state)).toEqual({ staged: 0, all: 0 })
      },
      { fileBytes: 2 * MiB, files: 100, treeBytes: 4 * MiB },
    ))

  it('refused at the commit (a file where a directory must be): the staged chunks are removed', () =>
    withStore(async (store, ledger, state) => {
      store.commit([{ path: 'keep.txt', bytes: new TextEncoder().encode('kept') }], 'call_1')
      const before = { chunks: chunkRows(state), events: events(ledger) }
      const upload = store.upload()
      await upload.tar(archive([{ path: 'good.txt', bytes: patterned(100) }, { path: 'keep.txt/bad', bytes: patterned(100, 2) }]), (path) => path)
      expect(chunkRows(state).staged).toBe(2)
      expect(() => upload.commit('upload:ada')).toThrow(expect.objectContaining({ code: 'NOT_A_DIRECTORY' }))
      expect({ chunks: chunkRows(state), events: events(ledger) }).toEqual(before)
    }))

  it('bytes already stored leave no staged chunk, and the rows a streamed upload writes are counted', () =>
    withStore(async (store, _ledger, state) => {
      const bytes = patterned(2 * MiB + 1)
      const rows = countRows(state.storage)
      const first = store.upload()
      await first.file('a.bin', pieces(bytes, 65_536))
      first.commit('upload:ada')
      // 3 chunks staged (a row and its key each), adopted by one update that rewrites them (2 per
      // chunk: what streaming costs over a buffered put), the artifact row (2), the event and the index row (1).
      const streamed = rows.total()
      expect(rows.byStatement()).toMatchObject({
        'insert into artifact_chunk (hash, idx, data) values (?, ?, ?)': 6,
        'update artifact_chunk set hash = ? where hash = ?': 6,
        'insert into workspace_file (path, seq, content, size) values (?, ?, ?, ?)': 1,
      })
      rows.reset()
      const again = store.upload()
      await again.file('b.bin', pieces(bytes, 65_536))
      again.commit('upload:ada')
      expect(chunkRows(state)).toEqual({ staged: 0, all: 3 })
      expect(sha256Hex(store.read('b.bin')!)).toBe(sha256Hex(bytes))
      // The copy's chunks were staged and dropped; its artifact row was never written.
      expect(rows.byStatement()['update artifact_chunk set hash = ? where hash = ?'] ?? 0).toBe(0)
      expect(rows.total()).toBeLessThan(streamed)
      rows.restore()
    }))

  it('a crash mid-upload leaves staged chunks nothing names; the sweep on start removes them and nothing else', () =>
    withStore(async (store, _ledger, state) => {
      store.commit([{ path: 'kept.txt', bytes: new TextEncoder().encode('kept') }], 'call_1')
      const key = stagingKey()
      store.artifacts.stage(key, 0, patterned(1000))
      store.artifacts.stage(key, 1, patterned(1000))
      expect(chunkRows(state)).toEqual({ staged: 2, all: 3 })
      store.artifacts.sweep()
      expect(chunkRows(state)).toEqual({ staged: 0, all: 1 })
      expect(new TextDecoder().decode(store.read('kept.txt')!)).toBe('kept')
    }))
})
