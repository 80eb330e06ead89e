import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { NeuronError } from '../../objects/core/errors.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { PAGE_PAYLOAD_BYTES } from '../../objects/core/limits.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'

const note = (topic: string, i: number, extra: Record<string, unknown> = {}) => ({
  topic,
  type: 'note',
  author: 'user:ada',
  time: 1000 + i,
  payload: { i },
  ...extra,
})

function errorOf(run: () => unknown): { code: string; status: number; details?: unknown } {
  try {
    run()
  } catch (error) {
    if (error instanceof NeuronError) return { code: error.code, status: error.status, details: error.details }
    throw error
  }
  throw new Error('expected an error')
}

describe('append', () => {
  it('assigns increasing sequences and stores the envelope as sealed', () =>
    withLedger(uniqueName(), (ledger) => {
      const a = ledger.append(note('session.s1', 1))
      const b = ledger.append(note('session.s1', 2))
      expect([a.envelope.seq, b.envelope.seq]).toEqual([1, 2])
      expect(ledger.get(a.envelope.id)).toEqual(a.envelope)
      expect(ledger.head()).toBe(2)
    }))

  it('takes the next sequence after writes it did not make: another ledger on the same storage, a spill, other tables', () =>
    withLedger(uniqueName(), (ledger, state) => {
      const other = new Ledger(state.storage)
      const seqs = [ledger.append(note('session.s1', 1)).envelope.seq]
      seqs.push(other.append(note('session.s2', 2)).envelope.seq)
      seqs.push(ledger.append(note('session.s1', 3)).envelope.seq)
      state.storage.sql.exec('create table if not exists scratch (x)')
      state.storage.sql.exec('insert into scratch (x) values (1)')
      seqs.push(ledger.append(note('session.s1', 4)).envelope.seq)
      seqs.push(other.append(note('session.s2', 5, { payload: 'x'.repeat(1024 * 1024 + 1) })).envelope.seq)
      seqs.push(ledger.append(note('session.s1', 6)).envelope.seq)
      seqs.push(ledger.append(note('session.s1', 7)).envelope.seq)
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7])
    }))

  it('takes the next sequence after its own artifact writes and after another ledger on the same storage', () =>
    withLedger(uniqueName(), (ledger, state) => {
      const other = new Ledger(state.storage)
      const bytes = (text: string) => new TextEncoder().encode(text)
      const seqs = [ledger.append(note('session.s1', 1)).envelope.seq]
      ledger.artifacts.put(bytes('baseline'))
      ledger.artifacts.put(bytes('baseline'))
      seqs.push(ledger.append(note('session.s1', 2)).envelope.seq)
      ledger.artifacts.put(bytes('tools'))
      seqs.push(other.append(note('session.s2', 3)).envelope.seq)
      seqs.push(ledger.append(note('session.s1', 4)).envelope.seq)
      ledger.artifacts.put(bytes('x'.repeat(2 * 1024 * 1024 + 1)))
      seqs.push(ledger.append(note('session.s1', 5)).envelope.seq)
      expect(seqs).toEqual([1, 2, 3, 4, 5])
      expect(ledger.head()).toBe(5)
    }))

  it('reports a duplicate that another ledger stored after its own last append', () =>
    withLedger(uniqueName(), (ledger, state) => {
      const other = new Ledger(state.storage)
      ledger.append(note('session.s1', 1))
      const theirs = other.append(note('session.s1', 2))
      expect(ledger.append(note('session.s1', 2))).toEqual({ envelope: theirs.envelope, duplicate: true })
      expect(ledger.append(note('session.s1', 3)).envelope.seq).toBe(3)
    }))

  it('is idempotent for byte-identical content: same id, same seq, no second row', () =>
    withLedger(uniqueName(), (ledger, state) => {
      const first = ledger.append(note('session.s1', 1))
      const again = ledger.append(note('session.s1', 1))
      expect(again).toEqual({ envelope: first.envelope, duplicate: true })
      const rows = state.storage.sql.exec<{ n: number }>('select count(*) as n from log').one()
      expect(rows.n).toBe(1)
    }))

  it('writes nothing when validation fails', () =>
    withLedger(uniqueName(), (ledger) => {
      expect(errorOf(() => ledger.append({ ...note('session.s1', 1), payload: { bad: Number.NaN } })).code).toBe('NOT_JSON_COMPATIBLE')
      expect(errorOf(() => ledger.append({ ...note('bad topic', 1) })).code).toBe('INVALID_ENVELOPE')
      expect(ledger.head()).toBe(0)
    }))

  it('spills a payload over 1 MiB to chunked artifacts and reads it back', () =>
    withLedger(uniqueName(), (ledger, state) => {
      const text = 'λ'.repeat(1_600_000) // 3.2 MB of UTF-8: two chunks of the 2 MB-row-safe size, plus a tail
      const { envelope } = ledger.append({ ...note('session.big', 1), payload: { text } })
      // Readers see the payload whether it is inline or spilled; the reference says where it lives.
      expect(envelope.payload).toEqual({ text })
      expect(envelope.payloadRef?.size).toBe(3_200_000 + '{"text":""}'.length)
      const chunks = state.storage.sql.exec<{ n: number }>('select count(*) as n from artifact_chunk').one()
      expect(chunks.n).toBe(4)
      const read = ledger.get(envelope.id)!
      expect(read.payload).toEqual({ text })
      expect(ledger.payload(read)).toEqual({ text })
      // Identical bytes are stored once.
      ledger.artifacts.put(new TextEncoder().encode(JSON.stringify({ text })))
      expect(state.storage.sql.exec<{ n: number }>('select count(*) as n from artifact').one().n).toBe(1)
    }))
})

describe('spilled payloads on every read', () => {
  const big = (i: number) => ({ ...note('session.spill', i), payload: { i, text: String(i % 10).repeat(1_500_000) } })

  it('every verb and fold reads spilled payloads back, and a page ends once it holds PAGE_PAYLOAD_BYTES', () =>
    withLedger(uniqueName(), (ledger) => {
      const first = ledger.append(big(0)).envelope
      for (let i = 1; i < 6; i++) ledger.append({ ...big(i), parent: ledger.latest('session.spill')!.id })
      expect(PAGE_PAYLOAD_BYTES).toBe(4 * 1024 * 1024)
      // 1.5 MB each: two fit in a 4 MiB page, a third would pass it, even though `limit` allows 100.
      const page = ledger.byTopic('session.spill', { limit: 100 })
      expect(page.items.map((e) => (e.payload as { i: number }).i)).toEqual([0, 1])
      expect(page.next).toBe(page.items[1]!.seq)
      const seen: number[] = []
      let after = 0
      for (;;) {
        const next = ledger.byTopic('session.spill', { after, limit: 100 })
        for (const e of next.items) {
          expect(e.payloadRef).toBeDefined()
          expect((e.payload as { text: string }).text).toHaveLength(1_500_000)
          seen.push((e.payload as { i: number }).i)
        }
        if (next.next === null) break
        after = next.next
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5])
      expect(ledger.byType('note').items).toHaveLength(2)
      expect(ledger.byTime(0, 10_000).items).toHaveLength(2)
      expect(ledger.descendants(first.id).items.map((e) => (e.payload as { i: number }).i)).toEqual([1, 2])
      const last = ledger.latest('session.spill')!
      expect((last.payload as { i: number }).i).toBe(5)
      expect(ledger.ancestors(last.id).items.map((e) => (e.payload as { i: number }).i)).toEqual([4, 3])
      const { state } = ledger.fold('session.spill', (sum: number, e) => sum + (e.payload as { text: string }).text.length, 0)
      expect(state).toBe(6 * 1_500_000)
    }))
})

describe('schema registry', () => {
  it('validates payloads on append against the registered ref; versions coexist', () =>
    withLedger(uniqueName(), (ledger) => {
      ledger.schemas.register('note@1', z.object({ text: z.string() }))
      ledger.schemas.register('note@2', z.object({ text: z.string(), tags: z.array(z.string()) }))
      ledger.append({ ...note('session.s1', 1), schema: 'note@1', payload: { text: 'v1' } })
      ledger.append({ ...note('session.s1', 2), schema: 'note@2', payload: { text: 'v2', tags: ['a'] } })
      const violation = errorOf(() => ledger.append({ ...note('session.s1', 3), schema: 'note@2', payload: { text: 'v2' } }))
      expect(violation.code).toBe('SCHEMA_VIOLATION')
      expect(JSON.stringify(violation.details)).toContain('tags')
      expect(errorOf(() => ledger.append({ ...note('session.s1', 4), schema: 'note@9' })).code).toBe('UNKNOWN_SCHEMA')
      expect(ledger.head()).toBe(2)
    }))

  it('validates plane-1 header values that name a ref', () =>
    withLedger(uniqueName(), (ledger) => {
      ledger.schemas.register('priority@1', { enum: ['low', 'high'] }, 1)
      ledger.append({ ...note('session.s1', 1), headers: [{ key: 'priority', value: 'low', ref: 'priority@1' }] })
      const bad = { ...note('session.s1', 2), headers: [{ key: 'priority', value: 'urgent', ref: 'priority@1' }] }
      expect(errorOf(() => ledger.append(bad)).code).toBe('SCHEMA_VIOLATION')
    }))

  it('keeps refs immutable: same schema is a no-op, a different one is a conflict', () =>
    withLedger(uniqueName(), (ledger) => {
      const first = ledger.schemas.register('n@1', { type: 'string' })
      expect(ledger.schemas.register('n@1', { type: 'string' })).toEqual(first)
      expect(errorOf(() => ledger.schemas.register('n@1', { type: 'number' }))).toMatchObject({ code: 'SCHEMA_CONFLICT', status: 409 })
      expect(errorOf(() => ledger.schemas.register('no-version', { type: 'number' })).code).toBe('INVALID_SCHEMA_REF')
    }))
})

describe('the four query verbs', () => {
  it('by topic, by type and by time range, paged by sequence', () =>
    withLedger(uniqueName(), (ledger) => {
      for (let i = 1; i <= 25; i++) {
        ledger.append({ ...note(i % 2 ? 'session.odd' : 'session.even', i), type: i % 5 === 0 ? 'tick' : 'note' })
      }
      const pages: number[][] = []
      let after = 0
      for (;;) {
        const page = ledger.byTopic('session.odd', { after, limit: 5 })
        pages.push(page.items.map((e) => (e.payload as { i: number }).i))
        if (page.next === null) break
        after = page.next
      }
      expect(pages).toEqual([[1, 3, 5, 7, 9], [11, 13, 15, 17, 19], [21, 23, 25]])
      expect(ledger.byType('tick').items.map((e) => e.topic)).toEqual(['session.odd', 'session.even', 'session.odd', 'session.even', 'session.odd'])
      expect(ledger.byTime(1010, 1013).items.map((e) => e.time)).toEqual([1010, 1011, 1012])
      expect(errorOf(() => ledger.byTopic('session.odd', { limit: 0 })).code).toBe('INVALID_LIMIT')
    }))

  it('walks causality up (ancestors, nearest first) and down (descendants), paged', () =>
    withLedger(uniqueName(), (ledger) => {
      //   root ─▶ a ─▶ b ─▶ c
      //            └──▶ x
      const root = ledger.append(note('agent.t1', 0)).envelope
      const a = ledger.append(note('agent.t1', 1, { parent: root.id })).envelope
      const b = ledger.append(note('agent.t1', 2, { parent: a.id })).envelope
      const x = ledger.append(note('agent.t1', 9, { parent: a.id })).envelope
      const c = ledger.append(note('agent.t1', 3, { parent: b.id })).envelope
      expect(ledger.ancestors(c.id).items.map((e) => e.id)).toEqual([b.id, a.id, root.id])
      const first = ledger.ancestors(c.id, { limit: 2 })
      expect(first.items.map((e) => e.id)).toEqual([b.id, a.id])
      expect(ledger.ancestors(c.id, { after: first.next!, limit: 2 })).toEqual({ items: [ledger.get(root.id)], next: null })
      expect(ledger.descendants(a.id).items.map((e) => e.id)).toEqual([b.id, x.id, c.id])
      const down = ledger.descendants(root.id, { limit: 2 })
      expect(down.items.map((e) => e.id)).toEqual([a.id, b.id])
      expect(ledger.descendants(root.id, { after: down.next! }).items.map((e) => e.id)).toEqual([x.id, c.id])
    }))
})

describe('fold', () => {
  it('is the read that builds state; its cursor resumes without replaying', () =>
    withLedger(uniqueName(), (ledger) => {
      for (let i = 1; i <= 1200; i++) ledger.append(note('session.sum', i))
      ledger.append(note('session.other', 5000))
      let seen = 0
      const sum = (total: number, e: Stored) => {
        seen++
        return total + (e.payload as { i: number }).i
      }
      const folded = ledger.fold('session.sum', sum, 0)
      expect(folded).toEqual({ state: (1200 * 1201) / 2, cursor: 1200 })
      for (let i = 1201; i <= 1210; i++) ledger.append(note('session.sum', i))
      seen = 0
      const resumed = ledger.fold('session.sum', sum, 0, folded)
      expect(seen).toBe(10)
      expect(resumed).toEqual({ state: (1210 * 1211) / 2, cursor: 1211 })
      expect(ledger.fold('session.sum', sum, 0)).toEqual(resumed)
    }))
})
