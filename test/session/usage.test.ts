/**
 * The session view sums what its steps reported using: tokens in and out, and cost. A step the
 * vendor reported no usage (or no price) for adds nothing; a failed step adds nothing.
 */
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { emptySession, reduceSession, viewOf } from '../../objects/session/events/projection.ts'

let seq = 0
const event = (type: string, payload: unknown) => ({ seq: ++seq, id: `e${seq}`, topic: 'session.s', type: `session.next.${type}`, author: 'test', parent: null, at: Date.now(), payload }) as unknown as Stored
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, cachedInputTokens: 0, reasoningTokens: 0 })

describe('session usage', () => {
  it("sums its steps' usage and cost, skipping what was not reported", () => {
    const log = [
      event('created', { model: 'echo-1', provider: 'local', title: null, system: null, owner: 'o', share: [] }),
      event('step.started', { step: 's1', turn: 1, provider: 'local', model: 'echo-1' }),
      event('step.ended', { step: 's1', finish: 'tool-calls', usage: usage(120, 7), cost: 0.0012 }),
      event('step.started', { step: 's2', turn: 2, provider: 'local', model: 'echo-1' }),
      event('step.ended', { step: 's2', finish: 'stop', usage: null, cost: null }),
      event('step.started', { step: 's3', turn: 3, provider: 'local', model: 'echo-1' }),
      event('step.failed', { step: 's3', error: { code: 'PROVIDER_ERROR', message: 'boom' } }),
      event('step.started', { step: 's4', turn: 4, provider: 'local', model: 'echo-1' }),
      event('step.ended', { step: 's4', finish: 'stop', usage: usage(300, 41), cost: null }),
    ]
    const state = log.reduce(reduceSession, emptySession())
    expect(viewOf('s', state).usage).toEqual({ inputTokens: 420, outputTokens: 48, cost: 0.0012 })
    expect(viewOf('s', emptySession()).usage).toEqual({ inputTokens: 0, outputTokens: 0, cost: 0 })
  })
})
