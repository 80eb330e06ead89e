/**
 * Ledger benchmarks. The physical limit is a raw `ctx.storage.sql.exec`
 * INSERT of the same column bytes into a table built from the object's own `log` DDL
 * (same layout, same indexes), in the same object, in the same run.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, it } from 'vitest'
import { seal } from '../../objects/ledger/envelope.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'

const N = 20_000

function draft(i: number) {
  return {
    topic: `session.s${i % 8}`,
    type: i % 10 === 0 ? 'session.next.step.ended' : 'session.next.text',
    author: 'user:ada@example.com',
    parent: null,
    headers: [
      { key: 'principal', value: 'user:ada' },
      { key: 'claims', value: ['org:acme', 'scope:sessions.write'] },
    ],
    payload: { index: i, text: `the quick brown fox jumps over the lazy dog ${i} `.repeat(5), tokens: { input: 120, output: 48 } },
  }
}

/** Ops per second over a timed loop. */
function rate(count: number, run: (i: number) => void): number {
  const start = performance.now()
  for (let i = 0; i < count; i++) run(i)
  return count / ((performance.now() - start) / 1000)
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

describe('ledger', () => {
  for (const [layout, stub] of [
    ['a session\'s log (clustered by topic, id index)', () => env.SESSIONS.getByName('bench-append')],
    ['the standalone ledger\'s log (rowid, an index per verb)', () => env.LEDGER.getByName('bench-append')],
  ] as const) {
    it(`append vs raw SQLite insert of the same bytes: ${layout}`, async () => {
      await runInDurableObject(stub(), (_o, state) => {
        const sql = state.storage.sql
        // The same table and indexes as this object's `log`, under another name.
        for (const { sql: ddl } of sql.exec<{ sql: string }>(`select sql from sqlite_master where tbl_name = 'log' and sql is not null`).toArray()) {
          sql.exec(ddl.replace(/(["`]?)\blog\1(?=\s*\()/, 'raw_log').replace(/ON (["`]?)log\1/, 'ON raw_log').replace(/`log_/, '`raw_log_'))
        }
        const rows = Array.from({ length: N }, (_, i) => {
          const { envelope, columns } = seal({ ...draft(i), author: 'raw' })
          return [i + 1, envelope.id, envelope.topic, envelope.type, null, envelope.author, envelope.time, null, columns.headers, columns.payload, null, columns.artifacts]
        })
        let rawRows = 0
        const raw = rate(N, (i) => {
          rawRows += sql.exec(
            'insert into raw_log (seq, id, topic, type, parent, author, time, schema, headers, payload, payload_ref, artifacts) values (?,?,?,?,?,?,?,?,?,?,?,?)',
            ...rows[i]!,
          ).rowsWritten
        })
        const ledger = new Ledger(state.storage)
        const ours = rate(N, (i) => ledger.append(draft(i)))
        const bytes = rows.reduce((n, r) => n + String(r[8]).length + String(r[9]).length, 0) / N
        console.log(`\nledger append into ${layout}, ${N} envelopes of ~${Math.round(bytes)} B (canonicalize + sha256 + validate + insert)`)
        console.log(`  raw sql.exec insert   ${fmt(raw)} /s   (physical limit; ${(rawRows / N).toFixed(1)} rows per insert)`)
        console.log(`  Ledger.append         ${fmt(ours)} /s`)
        console.log(`  ratio                 ${(ours / raw).toFixed(2)}× of raw   (target ≥ 0.33)`)
      })
    })
  }

  it('cost growth with log size, and fold of 100,000 envelopes', async () => {
    await runInDurableObject(env.LEDGER.getByName('bench-growth'), (_o, state) => {
      const ledger = new Ledger(state.storage)
      console.log('\nledger growth (per-envelope cost as the log grows)')
      console.log('  log size   append /s    by-topic read envelopes/s')
      let filled = 0
      for (const size of [1_000, 10_000, 100_000]) {
        while (filled < size - 1_000) ledger.append(draft(filled++))
        const appendRate = rate(1_000, () => ledger.append(draft(filled++)))
        const topics = 8
        const reads = 200
        let read = 0
        const start = performance.now()
        for (let k = 0; k < reads; k++) {
          const after = Math.floor((k / reads) * size)
          read += ledger.byTopic(`session.s${k % topics}`, { after, limit: 100 }).items.length
        }
        const readRate = read / ((performance.now() - start) / 1000)
        console.log(`  ${String(size).padStart(8)}   ${fmt(appendRate).padStart(9)}    ${fmt(readRate).padStart(12)}`)
      }
      const start = performance.now()
      let folded = 0
      for (let t = 0; t < 8; t++) folded += ledger.fold(`session.s${t}`, (n) => n + 1, 0).state
      const seconds = (performance.now() - start) / 1000
      console.log(`\nfold/replay of ${fmt(folded)} envelopes: ${fmt(folded / seconds)} envelopes/s (${seconds.toFixed(2)} s)`)
    })
  })
})
