/**
 * The memory recall design rests on SQLite FTS5 (BM25 ranking) inside a Durable
 * Object. This checks workerd's SQLite has it, and the features recall uses.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'

describe('FTS5 in a Durable Object', () => {
  it('creates an FTS5 table, ranks with bm25, deletes by rowid, and counts rows written', async () => {
    await runInDurableObject(env.LEDGER.getByName('fts5-probe'), (_o, state) => {
      const sql = state.storage.sql
      sql.exec(`create virtual table probe using fts5(text, t unindexed, tokenize = 'porter unicode61')`)
      sql.exec('insert into probe (rowid, text, t) values (1, ?, 10), (2, ?, 20), (3, ?, 30)', 'the cat sat on the mat', 'a dog barked', 'cats and dogs and cats')
      const hits = sql.exec<{ rowid: number; score: number }>(`select rowid, bm25(probe) as score from probe where probe match ? order by rank`, 'cat').toArray()
      expect(hits.map((h) => h.rowid)).toEqual([3, 1])
      expect(hits[0]!.score).toBeLessThan(0)
      sql.exec('delete from probe where rowid = 3')
      expect(sql.exec(`select rowid from probe where probe match 'cat'`).toArray()).toEqual([{ rowid: 1 }])
      const cursor = sql.exec('insert into probe (rowid, text, t) values (4, ?, 40)', 'one more cat')
      console.log(`one FTS5 insert wrote ${cursor.rowsWritten} rows`)
      expect(cursor.rowsWritten).toBeGreaterThan(0)
    })
  })
})
