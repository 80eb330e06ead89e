/**
 * The journal (objects/core/journal.ts) inside a real object's storage: what it records is a causal
 * chain on its held topic, its state is the fold of the log (restored from a snapshot by folding
 * only what follows it), a record before the first read is folded from the log by that read, and
 * its subscribers see an event only once it is stored.
 */
import { describe, expect, it } from 'vitest'
import { Journal, type Snapshots, TopicFold } from '../../objects/core/journal.ts'
import type { Folded } from '../../objects/ledger/ledger.ts'
import { on } from '../../objects/ledger/bus.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'

interface Count {
  n: number
  lastId: string | null
}

const reduce = (state: Count, envelope: { id: string }): Count => ({ n: state.n + 1, lastId: envelope.id })
const initial = (): Count => ({ n: 0, lastId: null })

describe('journal', () => {
  it('records a causal chain on its topic and folds each event into its state', async () => {
    await withLedger(uniqueName('journal-chain'), (ledger, state) => {
      const journal = new Journal({ storage: state.storage, topic: 'counter.c1', author: 'object:counter', reduce, initial, parent: (s) => s.lastId })
      journal.restore()
      const first = journal.record('counter.tick', { i: 1 })
      const second = journal.record('counter.tick', { i: 1 }, [{ key: 'principal', value: 'user:ada' }])
      expect(first.parent).toBeNull()
      expect(second.parent).toBe(first.id)
      // The same payload twice is two events: the parent keeps them distinct under content addressing.
      expect(second.id).not.toBe(first.id)
      expect(journal.state).toEqual({ n: 2, lastId: second.id })
      expect(ledger.byTopic('counter.c1').items.map((e) => e.id)).toEqual([first.id, second.id])
      expect(second.headers).toEqual([{ key: 'principal', value: 'user:ada' }])
    })
  })

  it('without a parent rule the topic is a chain read once from the log, and the first read folds what was recorded before it', async () => {
    await withLedger(uniqueName('journal-lazy'), (ledger, state) => {
      const existing = ledger.append({ topic: 'meter.m', type: 'meter.turn', author: 'a', payload: { i: 0 } }).envelope
      const journal = new Journal({ storage: state.storage, topic: 'meter.m', author: 'object:meter', reduce, initial })
      const recorded = journal.record('meter.turn', { i: 1 }, [], 'session:s1')
      expect(recorded.parent).toBe(existing.id)
      expect(recorded.author).toBe('session:s1')
      expect(journal.state.n).toBe(2)
      journal.record('meter.turn', { i: 2 })
      expect(journal.state.n).toBe(3)
    })
  })

  it('restores from a snapshot by folding only the events after it, and keeps one when due', async () => {
    await withLedger(uniqueName('journal-snapshot'), (_ledger, state) => {
      const kept: { state: Count; rebuilt: boolean }[] = []
      let stored: Folded<Count> | undefined
      const snapshots: Snapshots<Count> = { load: () => stored, keep: (s, rebuilt) => void kept.push({ state: s, rebuilt }) }
      const open = () => new Journal({ storage: state.storage, topic: 'counter.s', author: 'object:counter', reduce, initial, parent: (s) => s.lastId, snapshots })
      const journal = open()
      expect(journal.restore()).toEqual(initial())
      expect(kept).toEqual([{ state: initial(), rebuilt: true }])
      const a = journal.record('counter.tick', { i: 1 })
      journal.record('counter.tick', { i: 2 })
      expect(kept.slice(1).map((k) => k.rebuilt)).toEqual([false, false])
      // A snapshot after the first event that claims 100 events: a restore folds the one after it onto it.
      stored = { state: { n: 100, lastId: a.id }, cursor: a.seq }
      expect(open().restore().n).toBe(101)
    })
  })

  it('delivers to subscribers only what is stored first', async () => {
    await withLedger(uniqueName('journal-bus'), async (ledger, state) => {
      const journal = new Journal({ storage: state.storage, topic: 'counter.b', author: 'object:counter', reduce, initial, parent: (s) => s.lastId })
      journal.restore()
      const seen = journal.bus.next(on('counter.b'))
      const recorded = journal.record('counter.tick', {})
      const delivered = await seen
      expect(delivered.id).toBe(recorded.id)
      expect(ledger.has(delivered.id)).toBe(true)
    })
  })

  it('a TopicFold catches up with envelopes appended outside it', async () => {
    await withLedger(uniqueName('journal-topic-fold'), (ledger) => {
      const fold = new TopicFold(ledger, 'grants.g', reduce, initial)
      expect(fold.current().n).toBe(0)
      ledger.append({ topic: 'grants.g', type: 'grant', author: 'a', payload: { i: 1 } })
      ledger.append({ topic: 'grants.g', type: 'grant', author: 'a', payload: { i: 2 } })
      expect(fold.current().n).toBe(2)
    })
  })
})
