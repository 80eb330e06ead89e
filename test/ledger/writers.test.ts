/// <reference types="vite/client" />
/**
 * Only the `Ledger` writes a `log` table. Every `Ledger` over one storage shares the log's last
 * sequence in memory and assigns the next one from it without reading (objects/ledger/ledger.ts);
 * a write to `log` from anywhere else would go unseen, and a log keyed by `(topic, seq)` has no
 * constraint that would refuse the second event given one sequence. This test holds the source
 * to that: no other module names `log` in a statement that writes, raw or through drizzle.
 */
import { describe, expect, it } from 'vitest'

const sources = import.meta.glob(['../../objects/**/*.ts', '../../worker/**/*.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>

/** Raw SQL that writes `log`, or drizzle's insert/update/delete of the `log` table object. */
const writesLog = /\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+["'`]?log["'`]?(?![\w.])|\.(?:insert|update|delete)\(\s*log\s*\)/i

describe('writers of the log', () => {
  it('the ledger is the only module that writes a log table', () => {
    const files = Object.keys(sources)
    expect(files.length).toBeGreaterThan(100)
    const writers = files.filter((file) => writesLog.test(sources[file]!)).map((file) => file.replace('../../', ''))
    expect(writers).toEqual(['objects/ledger/ledger.ts'])
  })

  it('the pattern finds the writes it is meant to find', () => {
    for (const write of ['insert into log (seq) values (1)', 'INSERT OR IGNORE INTO "log" values (1)', 'update log set type = 1', 'delete from `log` where 1', 'db.insert(log).values(x)', 'db.delete( log )']) {
      expect(writesLog.test(write), write).toBe(true)
    }
    for (const read of ['select * from log where topic = ?', 'insert into log_archive values (1)', 'delete from logins', 'insert into artifact values (1)', 'db.select().from(log)', 'update catalog set x = 1']) {
      expect(writesLog.test(read), read).toBe(false)
    }
  })
})
