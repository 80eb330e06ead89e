import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { EVENT } from '../../objects/session/events/events.ts'
import { OpenStep } from '../../objects/session/turn/open-step.ts'

let seq = 0
const event = (type: string, payload: Record<string, unknown>): Stored => ({
  v: 'event-bus-envelope-v1',
  id: String(++seq).padStart(64, '0'),
  seq,
  topic: 'session.t',
  type,
  parent: null,
  author: 'test',
  time: seq,
  headers: [],
  artifacts: [],
  payload: payload as Stored['payload'],
})

describe('OpenStep', () => {
  it('keeps what only deltas carried; each durable event takes its part out; the step end drops it', () => {
    const open = new OpenStep()
    expect(open.snapshot()).toBeNull()
    open.event(event(EVENT.stepStarted, { step: 's1', turn: 1, provider: 'p', model: 'm' }))
    open.delta({ type: 'reasoning-delta', step: 's1', text: 'think' })
    open.delta({ type: 'text-delta', step: 's1', text: 'Hel' })
    open.delta({ type: 'text-delta', step: 's1', text: 'lo' })
    open.delta({ type: 'tool-input-delta', step: 's1', toolCallId: 'c1', name: 'calc', delta: '{"a":' })
    open.delta({ type: 'tool-input-delta', step: 's1', toolCallId: 'c2', name: 'notes', delta: '{' })
    open.delta({ type: 'tool-input-delta', step: 's1', toolCallId: 'c1', delta: '1}' })
    expect(open.snapshot()).toEqual({
      step: 's1',
      text: 'Hello',
      reasoning: 'think',
      tools: [
        { toolCallId: 'c1', name: 'calc', input: '{"a":1}' },
        { toolCallId: 'c2', name: 'notes', input: '{' },
      ],
      complete: true,
    })
    open.event(event(EVENT.toolCalled, { step: 's1', toolCallId: 'c1', name: 'calc', input: { a: 1 } }))
    // Another step's event changes nothing here.
    open.event(event(EVENT.text, { step: 'other', text: 'x' }))
    expect(open.snapshot()?.tools.map((t) => t.toolCallId)).toEqual(['c2'])
    open.event(event(EVENT.reasoning, { step: 's1', text: 'think' }))
    open.event(event(EVENT.text, { step: 's1', text: 'Hello' }))
    expect(open.snapshot()).toMatchObject({ text: '', reasoning: '' })
    open.event(event(EVENT.stepEnded, { step: 's1', finish: 'stop', usage: null, cost: null }))
    expect(open.snapshot()).toBeNull()
  })

  it('a new step replaces the last; an interrupt or failure of the open step closes it', () => {
    const open = new OpenStep()
    open.delta({ type: 'text-delta', step: 's1', text: 'a' })
    open.event(event(EVENT.stepStarted, { step: 's2', turn: 2, provider: 'p', model: 'm' }))
    expect(open.snapshot()).toEqual({ step: 's2', text: '', reasoning: '', tools: [], complete: true })
    open.delta({ type: 'text-delta', step: 's2', text: 'b' })
    open.event(event(EVENT.interrupted, { step: null, reason: 'between turns' }))
    expect(open.snapshot()?.text).toBe('b')
    open.event(event(EVENT.interrupted, { step: 's2', reason: 'user' }))
    expect(open.snapshot()).toBeNull()
    open.delta({ type: 'text-delta', step: 's3', text: 'c' })
    open.event(event(EVENT.stepFailed, { step: 's3', error: { code: 'X', message: 'x' } }))
    expect(open.snapshot()).toBeNull()
  })

  it('is bounded: past the cap it keeps nothing and says the snapshot is incomplete until the step ends', () => {
    const open = new OpenStep(10)
    open.event(event(EVENT.stepStarted, { step: 's1', turn: 1, provider: 'p', model: 'm' }))
    open.delta({ type: 'text-delta', step: 's1', text: '12345' })
    open.delta({ type: 'tool-input-delta', step: 's1', toolCallId: 'c', name: 't', delta: '1234' })
    expect(open.snapshot()).toMatchObject({ text: '12345', complete: true })
    open.delta({ type: 'text-delta', step: 's1', text: '67' })
    expect(open.snapshot()).toEqual({ step: 's1', text: '', reasoning: '', tools: [], complete: false })
    open.delta({ type: 'text-delta', step: 's1', text: 'more' })
    expect(open.snapshot()?.text).toBe('')
    // Freed parts make room again: a durable event takes its characters out of the count.
    open.event(event(EVENT.stepStarted, { step: 's2', turn: 2, provider: 'p', model: 'm' }))
    open.delta({ type: 'text-delta', step: 's2', text: '1234567' })
    open.event(event(EVENT.text, { step: 's2', text: '1234567' }))
    open.delta({ type: 'reasoning-delta', step: 's2', text: '1234567' })
    expect(open.snapshot()).toMatchObject({ reasoning: '1234567', complete: true })
  })
})
