/**
 * Graph and memory benchmarks, each against its physical limit
 * measured in the same object, in the same run:
 *
 * - edge append (seal, endpoint and cycle checks, envelope + index rows) against
 *   a raw `sql.exec` insert of the same bytes into identically indexed tables;
 *   and the rows one append writes (`cursor.rowsWritten`, every index entry a row)
 * - recall p50/p99 at 1k, 10k and 100k memories against a raw FTS5 `MATCH …
 *   ORDER BY rank` over the same rows
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, it } from 'vitest'
import { Graph } from '../../objects/graph/graph.ts'
import { Memory } from '../../objects/graph/memory.ts'
import { seal } from '../../objects/ledger/envelope.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'

const EDGES = 20_000
const author = 'idp#ada'

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/**
 * Milliseconds per call of `a` and of `b`, p50 and p99, each call of `b` right after the same call
 * of `a`. Each is repeated `reps` times and averaged: workerd's clock ticks in whole milliseconds.
 */
function latencies(count: number, reps: number, a: (i: number) => void, b: (i: number) => void) {
  const times = { a: [] as number[], b: [] as number[] }
  for (let i = 0; i < count; i++) {
    let start = performance.now()
    for (let r = 0; r < reps; r++) a(i)
    times.a.push((performance.now() - start) / reps)
    start = performance.now()
    for (let r = 0; r < reps; r++) b(i)
    times.b.push((performance.now() - start) / reps)
  }
  const summary = (list: number[]) => {
    list.sort((x, y) => x - y)
    return { p50: percentile(list, 50), p99: percentile(list, 99) }
  }
  return { a: summary(times.a), b: summary(times.b) }
}

/** A deterministic word stream: memories share a 5,000-word vocabulary, skewed like prose. */
function words(seed: number, count: number): string {
  let x = seed * 2654435761
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    const r = (x % 10_000) / 10_000
    out.push(`w${Math.floor(5_000 * r * r)}`)
  }
  return out.join(' ')
}

describe('graph', () => {
  it('edge append vs raw SQLite insert of the same bytes, and rows written per append', async () => {
    await runInDurableObject(env.GRAPHS.getByName('principal:bench-edges'), (_o, state) => {
      const sql = state.storage.sql
      // The same tables and indexes as this graph's `log` and `edge`, under other names.
      const rename = (statement: string) => statement.replace(/(["`])(log|edge)\1/g, '`raw_$2`').replace(/`(log|edge)_/g, '`raw_$1_')
      for (const { sql: ddl } of sql.exec<{ sql: string }>(`select sql from sqlite_master where tbl_name in ('log', 'edge') and sql is not null`).toArray()) sql.exec(rename(ddl))
      const ledger = new Ledger(state.storage)
      const graph = new Graph(ledger, state.storage)
      const nodes = Array.from({ length: 1_000 }, (_, i) => graph.putNode({ kind: 'turn', id: `t${i}`, text: `turn ${i}`, author }).node.address)
      const draft = (i: number) => ({ source: nodes[i % 1000]!, target: nodes[(i * 7 + 1) % 1000]!, type: i % 2 ? 'regards' : 'mentions', author, payload: { i } })
      const rows = Array.from({ length: EDGES }, (_, i) => {
        const d = draft(i)
        const { envelope, columns } = seal({ topic: d.source, type: `edge.${d.type}`, author, parent: null, headers: [{ key: 'target', value: d.target }], payload: d.payload })
        return { log: [envelope.id, envelope.topic, envelope.type, null, author, envelope.time, null, columns.headers, columns.payload, null, columns.artifacts], edge: [d.source, d.target, d.type] }
      })
      let rawRows = 0
      const rawInsert = (i: number) => {
        const c1 = sql.exec('insert into raw_log (id, topic, type, parent, author, time, schema, headers, payload, payload_ref, artifacts) values (?,?,?,?,?,?,?,?,?,?,?)', ...rows[i]!.log)
        const c2 = sql.exec('insert into raw_edge (seq, source, target, type) values (last_insert_rowid(), ?, ?, ?)', ...rows[i]!.edge)
        rawRows += c1.rowsWritten + c2.rowsWritten
      }
      // Interleaved blocks, so load from other processes on the machine weighs on both sides alike.
      const block = EDGES / 10
      let rawMs = 0
      let ourMs = 0
      for (let b = 0; b < 10; b++) {
        let start = performance.now()
        for (let i = b * block; i < (b + 1) * block; i++) rawInsert(i)
        rawMs += performance.now() - start
        start = performance.now()
        for (let i = b * block; i < (b + 1) * block; i++) graph.link(draft(i))
        ourMs += performance.now() - start
      }
      const raw = EDGES / (rawMs / 1000)
      const ours = EDGES / (ourMs / 1000)
      // Then count what one append writes, on 1,000 more, by summing every statement's cursor.
      const exec = sql.exec.bind(sql)
      let ourRows = 0
      ;(sql as { exec: unknown }).exec = (query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings)
        ourRows += cursor.rowsWritten
        return cursor
      }
      for (let i = EDGES; i < EDGES + 1_000; i++) graph.link(draft(i))
      ;(sql as { exec: unknown }).exec = exec
      console.log(`\ngraph edge append, ${EDGES} edges between 1,000 nodes (seal + endpoint/cycle checks + envelope + index)`)
      console.log(`  raw sql.exec insert (log + edge rows)   ${fmt(raw)} /s   (physical limit)`)
      console.log(`  Graph.link                              ${fmt(ours)} /s`)
      console.log(`  ratio                                   ${(ours / raw).toFixed(2)}× of raw   (target ≥ 0.33)`)
      console.log(`  rows written per append                 ${(ourRows / 1_000).toFixed(1)} (raw insert of the same rows: ${(rawRows / EDGES).toFixed(1)})`)
    })
  })

  // One test per size on the same object (it keeps its rows), so each size's figures print as soon as they exist.
  const queries = Array.from({ length: 300 }, (_, i) => words(1_000_000 + i, 2))
  const REPS: Record<number, number> = { 1_000: 20, 10_000: 5, 100_000: 1 }
  let filled = 0
  for (const size of [1_000, 10_000, 100_000]) {
    it(`recall p50/p99 at ${size.toLocaleString('en-US')} memories vs a raw FTS5 MATCH over the same rows`, async () => {
      await runInDurableObject(env.GRAPHS.getByName('principal:bench-recall'), (_o, state) => {
        const memory = new Memory(new Graph(new Ledger(state.storage), state.storage), state.storage)
        const sql = state.storage.sql
        const start = performance.now()
        const before = filled
        for (; filled < size; filled++) memory.remember({ text: `${words(filled, 12)} #${filled}`, author })
        const rememberRate = (filled - before) / ((performance.now() - start) / 1000)
        // Each query runs raw, then ours, back to back: load from elsewhere weighs on both alike.
        const { a: raw, b: ours } = latencies(
          queries.length,
          REPS[size]!,
          (i) => {
            const match = queries[i]!.split(' ').map((w) => `"${w}"`).join(' OR ')
            sql.exec('select rowid, text, address from memory_text where memory_text match ? order by rank limit 10', match).toArray()
          },
          (i) => memory.recall({ query: queries[i]!, limit: 10 }),
        )
        const f = (n: number) => n.toFixed(3)
        console.log(`\nmemory recall (top 10) at ${size} memories, 300 two-word queries, ms per query (remembered at ${fmt(rememberRate)} /s)`)
        console.log(`  recall      p50 ${f(ours.p50)}   p99 ${f(ours.p99)}`)
        console.log(`  raw MATCH   p50 ${f(raw.p50)}   p99 ${f(raw.p99)}   (physical limit)`)
        console.log(`  ratio       p50 ${(ours.p50 / raw.p50).toFixed(2)}×   p99 ${(ours.p99 / raw.p99).toFixed(2)}×   (target ≤ 2×)`)
      })
    })
  }
})
