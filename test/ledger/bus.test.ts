import { describe, expect, it } from 'vitest'
import { Bus, type Delivered, on } from '../../objects/ledger/bus.ts'
import { matchAddress } from '../../objects/ledger/address.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'

describe('addresses', () => {
  it.each([
    ['session.*', 'session.s1', true],
    ['session.*', 'session.s1.stream', false],
    ['session.*', 'session', false],
    ['orchestration.*.agent.*', 'orchestration.o1.agent.t7', true],
    ['orchestration.**', 'orchestration.o1.agent.t7', true],
    ['orchestration.**', 'orchestration', true],
    ['agent.t1', 'agent.t2', false],
  ])('%s matches %s: %s', (pattern, address, expected) => {
    expect(matchAddress(pattern, address)).toBe(expected)
  })
})

describe('bus', () => {
  it('stores envelopes on held addresses before any handler sees them; air is never stored', () =>
    withLedger(uniqueName(), async (ledger) => {
      const bus = new Bus({ ledger, author: 'test', holds: ['session.*'] })
      const seenAtDelivery: (number | undefined)[] = []
      bus.subscribe(on('session.**'), (e) => {
        seenAtDelivery.push(ledger.get(e.id)?.seq)
      })
      await bus.emit('session.s1', 'prompted', { text: 'hi' })
      await bus.emit('session.s1.stream', 'text-delta', { text: 'h' })
      expect(seenAtDelivery).toEqual([1, undefined])
      expect(ledger.head()).toBe(1)
      expect(bus.isDurable('session.s1.stream')).toBe(false)
    }))

  it('hold makes an address durable until released', () =>
    withLedger(uniqueName(), async (ledger) => {
      const bus = new Bus({ ledger, author: 'test' })
      bus.publish('agent.t1', 'step', { n: 1 })
      const release = bus.hold('agent.t1')
      const held = bus.publish('agent.t1', 'step', { n: 2 })
      release()
      bus.publish('agent.t1', 'step', { n: 3 })
      expect(ledger.byTopic('agent.t1').items.map((e) => e.payload)).toEqual([{ n: 2 }])
      expect('seq' in held).toBe(true)
    }))

  it('filters by predicate on address segments: routing and fan-out are matching', () =>
    withLedger(uniqueName(), async (ledger) => {
      const bus = new Bus({ ledger, author: 'test' })
      const a: string[] = []
      const b: string[] = []
      bus.subscribe(on('orchestration.o1.agent.*'), (e) => void a.push(e.topic))
      bus.subscribe(on('orchestration.*.agent.t2', 'step'), (e) => void b.push(e.topic))
      await bus.emit('orchestration.o1.agent.t1', 'step')
      await bus.emit('orchestration.o1.agent.t2', 'plan')
      await bus.emit('orchestration.o2.agent.t2', 'step')
      expect(a).toEqual(['orchestration.o1.agent.t1', 'orchestration.o1.agent.t2'])
      expect(b).toEqual(['orchestration.o2.agent.t2'])
    }))

  it('emit awaits handlers and reports their failures; publish never throws at the sender', () =>
    withLedger(uniqueName(), async (ledger) => {
      const bus = new Bus({ ledger, author: 'test', holds: ['session.*'] })
      let finished = false
      bus.subscribe(on('session.*', 'slow'), async () => {
        await new Promise((r) => setTimeout(r, 20))
        finished = true
      })
      bus.subscribe(on('session.*', 'boom'), () => {
        throw new Error('handler broke')
      })
      await bus.emit('session.s1', 'slow')
      expect(finished).toBe(true)
      await expect(bus.emit('session.s1', 'boom')).rejects.toThrow(AggregateError)
      // The envelope was stored before delivery even though a handler failed.
      expect(ledger.byType('boom').items).toHaveLength(1)
      expect(() => bus.publish('session.s1', 'boom', { again: true })).not.toThrow()
    }))

  it('next resolves with the next matching envelope, and rejects when aborted', () =>
    withLedger(uniqueName(), async (ledger) => {
      const bus = new Bus({ ledger, author: 'test' })
      const waiting = bus.next(on('agent.*', 'done'))
      bus.publish('agent.t1', 'progress', { p: 1 })
      bus.publish('agent.t1', 'done', { ok: true })
      const got: Delivered = await waiting
      expect(got.payload).toEqual({ ok: true })

      const controller = new AbortController()
      const never = bus.next(on('agent.*', 'never'), controller.signal)
      controller.abort(new Error('stopped waiting'))
      await expect(never).rejects.toThrow('stopped waiting')
    }))

  it('unsubscribe stops delivery, even of envelopes already in flight', () =>
    withLedger(uniqueName(), async (ledger) => {
      const bus = new Bus({ ledger, author: 'test' })
      const seen: unknown[] = []
      const off = bus.subscribe(on('agent.*'), (e) => void seen.push(e.payload))
      bus.publish('agent.t1', 'x', 1)
      off()
      await new Promise((r) => setTimeout(r, 0))
      await bus.emit('agent.t1', 'x', 2)
      expect(seen).toEqual([])
    }))
})
