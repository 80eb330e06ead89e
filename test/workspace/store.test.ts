/**
 * The workspace over real Durable Object storage (a LedgerObject's SQLite with the workspace table
 * added): the index is the fold of the events at every sequence, refusals write nothing, each
 * operation writes the rows the store's header says, and one call touches a bounded number of rows
 * whatever the tree's size.
 */
import { describe, expect, it } from 'vitest'
import workspaceSql from '../../migrations/workspace/0000_workspace_file.sql'
import { NeuronError } from '../../objects/core/errors.ts'
import { sha256Hex } from '../../objects/ledger/hash.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { ledgerLog, WorkspaceStore } from '../../objects/workspace/store.ts'
import { type Change, MemoryTree } from '../../objects/workspace/tree.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { countRows } from '../support/rows.ts'
import { codeOf } from '../support/codes.ts'

const TOPIC = 'session.s1.workspace'
const text = (s: string) => new TextEncoder().encode(s)
const decode = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b))

function withStore<T>(fn: (store: WorkspaceStore, ledger: Ledger, state: DurableObjectState) => T, limits?: ConstructorParameters<typeof WorkspaceStore>[3]): Promise<T> {
  return withLedger(uniqueName('ws'), (ledger, state) => {
    state.storage.sql.exec(workspaceSql)
    return fn(new WorkspaceStore(state.storage, ledger.artifacts, ledgerLog(ledger, TOPIC, 'object:test'), limits), ledger, state)
  })
}


/** The tree at `at`, folded from the log's events alone. */
function foldAt(ledger: Ledger, at: number): MemoryTree {
  const tree = new MemoryTree()
  for (const item of ledger.byTopic(TOPIC, { limit: 1000 }).items) if (item.seq <= at) tree.apply(item.payload as unknown as Change)
  return tree
}

describe('the index is the fold of the events', () => {
  it('at every sequence, for a run of writes, deletes and renames', () =>
    withStore((store, ledger) => {
      // A deterministic pseudo-random run over a few paths, so paths are rewritten, deleted and reborn.
      let seed = 7
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
      const paths = ['a.txt', 'src/a.ts', 'src/b.ts', 'src/lib/c.ts', 'docs/x.md', 'z']
      for (let i = 0; i < 120; i++) {
        const path = paths[next() % paths.length]!
        const existing = store.entry(path)
        const roll = next() % 10
        try {
          if (existing && roll < 2) store.commit([{ path, bytes: null }], `call_${i}`)
          else if (existing && roll < 4) store.rename(path, paths[next() % paths.length]!, `call_${i}`)
          else store.commit([{ path, bytes: text(`v${next() % 5}`) }], `call_${i}`)
        } catch (error) {
          // Conflicts the run walks into (a file where a directory is) are refusals, not failures.
          if (!(error instanceof NeuronError)) throw error
        }
      }
      const head = ledger.head()
      expect(head).toBeGreaterThan(100)
      for (let at = 0; at <= head; at += 7) {
        const folded = foldAt(ledger, at).entries()
        expect(store.list('', { at, limit: 1000 }).entries).toEqual(folded)
        for (const entry of folded) expect(store.entry(entry.path, at)).toEqual(entry)
      }
      expect(store.totals()).toEqual(foldAt(ledger, head).totals())
    }))

  it('reads bytes back at the sequence asked for, and lists by directory, paged', () =>
    withStore((store) => {
      const first = store.commit([{ path: 'src/a.ts', bytes: text('one') }], 'c1').changes[0]!.seq
      store.commit([{ path: 'src/a.ts', bytes: text('two') }, { path: 'src/b.ts', bytes: text('b') }, { path: 'srcx', bytes: text('x') }, { path: 'src/deep/c.ts', bytes: text('c') }], 'c2')
      expect(decode(store.read('src/a.ts', first))).toBe('one')
      expect(decode(store.read('src/a.ts'))).toBe('two')
      expect(store.read('src/b.ts', first)).toBeNull()
      expect(store.list('src').entries.map((e) => e.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/deep/c.ts'])
      const page = store.list('src', { limit: 2 })
      expect(page.entries.map((e) => e.path)).toEqual(['src/a.ts', 'src/b.ts'])
      expect(store.list('src', { after: page.next!, limit: 2 })).toEqual({ entries: [expect.objectContaining({ path: 'src/deep/c.ts' })], next: null })
      expect(store.list('', {}).entries.map((e) => e.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'srcx'])
    }))

  it('stores a large file in 1 MiB chunks of the artifact store and reads it back whole', () =>
    withStore((store, ledger, state) => {
      const bytes = new Uint8Array(2.5 * 1024 * 1024).map((_, i) => (i * 31) % 251)
      const [change] = store.commit([{ path: 'big.bin', bytes }], 'c1').changes
      // Compared by hash: a deep equality of 2.5 million elements takes the test runner a minute.
      expect(sha256Hex(store.read('big.bin')!)).toBe(sha256Hex(bytes))
      expect(change!.after).toBe(sha256Hex(bytes))
      expect(ledger.artifacts.get(change!.after!)!.byteLength).toBe(bytes.byteLength)
      const chunks = state.storage.sql.exec<{ n: number }>('select count(*) as n from artifact_chunk where hash = ?', change!.after).one().n
      expect(chunks).toBe(3)
    }))
})

describe('refused operations write nothing', () => {
  const cases: [string, (store: WorkspaceStore) => unknown, string][] = [
    ['a file past the file limit', (s) => s.commit([{ path: 'big', bytes: new Uint8Array(65) }], 'c'), 'FILE_TOO_LARGE'],
    ['one file too many', (s) => s.commit([{ path: 'n1', bytes: text('1') }, { path: 'n2', bytes: text('2') }], 'c'), 'WORKSPACE_FULL'],
    ['bytes past the tree limit', (s) => s.commit([{ path: 'a.txt', bytes: new Uint8Array(64) }, { path: 'b.txt', bytes: new Uint8Array(64) }], 'c'), 'WORKSPACE_FULL'],
    ['a file under a file', (s) => s.commit([{ path: 'a.txt/x', bytes: text('x') }], 'c'), 'NOT_A_DIRECTORY'],
    ['a file over a directory', (s) => s.commit([{ path: 'dir', bytes: text('x') }], 'c'), 'IS_A_DIRECTORY'],
    ['deleting what is absent', (s) => s.commit([{ path: 'nope', bytes: null }], 'c'), 'FILE_NOT_FOUND'],
    ['renaming what is absent', (s) => s.rename('nope', 'b', 'c'), 'FILE_NOT_FOUND'],
    ['a good edit beside a bad one', (s) => s.commit([{ path: 'ok.txt', bytes: text('fine') }, { path: 'a.txt/x', bytes: text('x') }], 'c'), 'NOT_A_DIRECTORY'],
  ]
  it.each(cases)('%s', (_name, run, code) =>
    withStore(
      (store, ledger, state) => {
        store.commit([{ path: 'a.txt', bytes: text('a') }, { path: 'dir/f', bytes: text('f') }], 'setup')
        const head = ledger.head()
        const totals = store.totals()
        const rows = countRows(state.storage)
        expect(codeOf(() => run(store))).toBe(code)
        expect(rows.total()).toBe(0)
        rows.restore()
        expect(ledger.head()).toBe(head)
        expect(store.totals()).toEqual(totals)
      },
      { fileBytes: 64, files: 3, treeBytes: 100 },
    ),
  )

  it('a tree over its limits may still shrink', () =>
    withStore(
      (store) => {
        store.commit([{ path: 'a', bytes: text('a') }, { path: 'b', bytes: text('b') }], 'setup')
        const narrow = new WorkspaceStore((store as unknown as { storage: DurableObjectStorage }).storage, (store as unknown as { artifacts: Ledger['artifacts'] }).artifacts, { record: () => 0, changes: () => ({ items: [], next: null }) }, { fileBytes: 64, files: 1, treeBytes: 100 })
        expect(narrow.decide([{ path: 'a', after: null }], 'c').totals).toEqual({ files: 1, bytes: 1 })
        expect(codeOf(() => narrow.decide([{ path: 'c', after: { content: 'x', size: 1 } }], 'c'))).toBe('WORKSPACE_FULL')
      },
      { fileBytes: 64, files: 10, treeBytes: 100 },
    ))
})

describe('rows written per operation', () => {
  /** Rows by table for one operation; the log's own rows depend on how the object indexes its log. */
  function rowsOf(state: DurableObjectState, run: () => unknown): Record<string, number> {
    const rows = countRows(state.storage)
    run()
    const out: Record<string, number> = {}
    for (const [statement, n] of Object.entries(rows.byStatement())) {
      const table = /insert into "?(\w+)"?/i.exec(statement)?.[1] ?? statement
      out[table] = (out[table] ?? 0) + n
    }
    rows.restore()
    return out
  }

  it('a new file, a rewrite to stored bytes, a delete, a rename, a write that changes nothing', () =>
    withStore((store, ledger, state) => {
      // The log's rows per event in this object (a LedgerObject indexes its log for every verb; a session writes 2).
      const perEvent = rowsOf(state, () => ledger.append({ topic: 'other', type: 'x', author: 'user:a', payload: 1 })).log!
      expect(rowsOf(state, () => store.commit([{ path: 'a.txt', bytes: text('hello') }], 'c1'))).toEqual({ artifact: 2, artifact_chunk: 2, log: perEvent, workspace_file: 1 })
      expect(rowsOf(state, () => store.commit([{ path: 'b.txt', bytes: text('hello') }], 'c2'))).toEqual({ log: perEvent, workspace_file: 1 })
      expect(rowsOf(state, () => store.commit([{ path: 'b.txt', bytes: null }], 'c3'))).toEqual({ log: perEvent, workspace_file: 1 })
      expect(rowsOf(state, () => store.rename('a.txt', 'c.txt', 'c4'))).toEqual({ log: 2 * perEvent, workspace_file: 2 })
      expect(rowsOf(state, () => store.commit([{ path: 'c.txt', bytes: text('hello') }], 'c5'))).toEqual({})
      expect(rowsOf(state, () => store.commit([{ path: 'big', bytes: new Uint8Array(2.5 * 1024 * 1024) }], 'c6'))).toEqual({ artifact: 2, artifact_chunk: 6, log: perEvent, workspace_file: 1 })
    }))
})

describe('history: sequences, diffs, going back', () => {
  it('diff names each changed path once, with its content at both ends, paged', () =>
    withStore((store) => {
      const s0 = store.commit([{ path: 'keep', bytes: text('k') }, { path: 'gone', bytes: text('g') }, { path: 'same', bytes: text('s') }], 'c0').changes.at(-1)!.seq
      store.commit([{ path: 'new', bytes: text('1') }], 'c1')
      store.commit([{ path: 'new', bytes: text('2') }, { path: 'gone', bytes: null }], 'c2')
      store.commit([{ path: 'same', bytes: text('t') }], 'c3')
      store.commit([{ path: 'same', bytes: text('s') }], 'c4')
      const hash = (path: string) => store.entry(path)?.content ?? null
      const all = store.diff(s0)
      expect(all.next).toBeNull()
      // In the order of each path's last change: 'new' then 'gone' (both in c2).
      expect(all.differences).toEqual([
        { path: 'new', before: null, after: hash('new') },
        { path: 'gone', before: store.entry('gone', s0)!.content, after: null },
      ])
      const first = store.diff(s0, undefined, { limit: 1 })
      expect(first.differences).toHaveLength(1)
      const second = store.diff(s0, undefined, { after: first.next!, limit: 1 })
      expect([...first.differences, ...second.differences]).toEqual(all.differences)
      expect(store.diff(s0, s0).differences).toEqual([])
    }))

  it('a log that answers short pages still gives the whole diff', () =>
    withLedger(uniqueName('ws'), (ledger, state) => {
      state.storage.sql.exec(workspaceSql)
      const log = ledgerLog(ledger, TOPIC, 'object:test')
      // A page cut short (as a ledger page is when its payloads reach the page's byte budget).
      const short: typeof log = { record: log.record, changes: (after, to) => log.changes(after, to, 1) }
      const store = new WorkspaceStore(state.storage, ledger.artifacts, short)
      store.commit(['a', 'b', 'c', 'd'].map((path) => ({ path, bytes: text(path) })), 'c1')
      expect(store.diff(0).differences.map((d) => d.path)).toEqual(['a', 'b', 'c', 'd'])
    }))

  it('revertTo takes the tree back to a sequence with new events, sharing the blobs', () =>
    withStore((store, ledger, state) => {
      const at = store.commit([{ path: 'a', bytes: text('a1') }, { path: 'b', bytes: text('b1') }], 'c0').changes.at(-1)!.seq
      const then = store.list('').entries
      store.commit([{ path: 'a', bytes: text('a2') }, { path: 'b', bytes: null }, { path: 'c', bytes: text('c') }], 'c1')
      const head = ledger.head()
      const rows = countRows(state.storage)
      const reverted = store.revertTo(at, 'truncate')
      expect(Object.keys(rows.byStatement()).filter((statement) => statement.includes('artifact'))).toEqual([])
      rows.restore()
      expect(reverted.changes.every((change) => change.seq > head)).toBe(true)
      expect(store.list('').entries).toEqual(then)
      expect(store.totals()).toEqual(foldAt(ledger, at).totals())
      expect(store.revertTo(at, 'truncate').changes).toEqual([])
    }))
})

/** Rows `run` reads from storage, and the code it was refused with, if any. */
function rowsRead(storage: DurableObjectStorage, run: () => unknown): { rows: number; code: string | null } {
  const sql = storage.sql
  const exec = sql.exec
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = []
  sql.exec = function (query: string, ...bindings: unknown[]) {
    const cursor = exec.call(sql, query, ...bindings)
    cursors.push(cursor)
    return cursor
  } as typeof sql.exec
  let code: string | null = null
  try {
    run()
  } catch (error) {
    if (!(error instanceof NeuronError)) throw error
    code = error.code
  } finally {
    sql.exec = exec
  }
  return { rows: cursors.reduce((n, c) => n + c.rowsRead, 0), code }
}

describe('one call touches what it needs, not the tree', () => {
  it('in a 10,000-file workspace, a read and a decision read a few rows; a listing page reads two per file', () =>
    withStore((store, _ledger, state) => {
      for (let batch = 0; batch < 10; batch++) {
        store.commit(
          Array.from({ length: 1000 }, (_, i) => ({ path: `d${batch}/f${String(i).padStart(4, '0')}.txt`, bytes: text(`${batch}:${i}`) })),
          `batch_${batch}`,
        )
      }
      expect(store.totals().files).toBe(10_000)
      const read = (run: () => unknown) => rowsRead(state.storage, run)
      expect(read(() => store.entry('d5/f0500.txt'))).toEqual({ rows: 1, code: null })
      expect(read(() => store.read('d5/f0500.txt')).rows).toBeLessThanOrEqual(3)
      // A new file three directories down: a seek for the file, one per directory, one for files below it.
      expect(read(() => store.decide([{ path: 'd5/new/deep/x.txt', after: { content: 'ff', size: 1 } }], 'c')).rows).toBeLessThanOrEqual(8)
      // A file over a directory of 1,000 files is refused after finding the first file below.
      expect(read(() => store.decide([{ path: 'd5', after: { content: 'ff', size: 1 } }], 'c'))).toEqual({ rows: expect.any(Number), code: 'IS_A_DIRECTORY' })
      expect(read(() => store.decide([{ path: 'd5', after: { content: 'ff', size: 1 } }], 'c')).rows).toBeLessThanOrEqual(6)
      expect(read(() => store.list('d7', { limit: 100 })).rows).toBeLessThanOrEqual(2 * 101 + 2)
    }), 60_000)
})
