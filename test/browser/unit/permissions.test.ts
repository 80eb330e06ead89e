/**
 * The agent panel's fold of permission requests (shell-web/agent/permissions.ts), in Node: what
 * opens a request and what settles it, each event once by sequence, only a pending request settled,
 * and the settled ones bounded.
 */
import { describe, expect, it } from 'vitest'
import { EVENT, type SessionFrame } from '../../../client/index.ts'
import { PermissionRequests } from '../../../shell-web/agent/permissions.ts'

let seq = 0
const event = (type: string, payload: Record<string, unknown>): SessionFrame => ({ kind: 'event', envelope: { seq: ++seq, type, payload } as never })
const requested = (toolCallId: string, step = 's1') =>
  event(EVENT.permissionRequested, { step, toolCallId, tool: 'bash', source: 'builtin', subjects: [`rm ${toolCallId}.txt`], input: { command: `rm ${toolCallId}.txt` }, reason: 'ask', expiresAt: 1 })

describe('permission requests folded from a session’s frames', () => {
  it('a request opens pending and settles once: answered, expired, or its call ended (cancelled)', () => {
    const requests = new PermissionRequests()
    for (const id of ['a', 'b', 'c', 'd']) expect(requests.apply(requested(id))).toBe(true)
    expect(requests.pending().map((card) => card.toolCallId)).toEqual(['a', 'b', 'c', 'd'])
    expect(requests.apply(event(EVENT.permissionAnswered, { step: 's1', toolCallId: 'a', reply: 'reject', by: 'user#ada', reason: 'no' }))).toBe(true)
    expect(requests.apply(event(EVENT.permissionAnswered, { step: 's1', toolCallId: 'b', reply: 'always', by: 'user#ada', rules: [{ tool: 'bash', match: 'rm b.txt', action: 'allow' }] }))).toBe(true)
    expect(requests.apply(event(EVENT.permissionExpired, { step: 's1', toolCallId: 'c' }))).toBe(true)
    expect(requests.apply(event(EVENT.toolCancelled, { step: 's1', toolCallId: 'd', reason: 'interrupt' }))).toBe(true)
    expect(requests.list().map(({ toolCallId, state, by, why, rules }) => ({ toolCallId, state, by, why, rules }))).toEqual([
      { toolCallId: 'a', state: 'reject', by: 'user#ada', why: 'no', rules: undefined },
      { toolCallId: 'b', state: 'always', by: 'user#ada', why: undefined, rules: [{ tool: 'bash', match: 'rm b.txt', action: 'allow' }] },
      { toolCallId: 'c', state: 'expired', by: undefined, why: undefined, rules: undefined },
      { toolCallId: 'd', state: 'cancelled', by: undefined, why: undefined, rules: undefined },
    ])
    // The rejected call's failure comes after its answer: the card keeps how it was answered.
    expect(requests.apply(event(EVENT.toolFailed, { step: 's1', toolCallId: 'a', error: { code: 'PERMISSION_DENIED', message: 'no' } }))).toBe(false)
    expect(requests.list()[0]!.state).toBe('reject')
    expect(requests.pending()).toEqual([])
  })

  it('counts each event once by sequence (a reconnect replays nothing twice) and keys a call by its step', () => {
    const requests = new PermissionRequests()
    const frame = requested('call_1_1', 's1')
    expect(requests.apply(frame)).toBe(true)
    expect(requests.apply(frame)).toBe(false)
    requests.apply(event(EVENT.permissionAnswered, { step: 's1', toolCallId: 'call_1_1', reply: 'once', by: 'user#ada' }))
    // The same call id in a later step is another request; an answer naming the old step leaves it.
    requests.apply(requested('call_1_1', 's2'))
    expect(requests.apply(event(EVENT.permissionAnswered, { step: 's1', toolCallId: 'call_1_1', reply: 'reject', by: 'user#ada' }))).toBe(false)
    expect(requests.list().map((card) => `${card.step}:${card.state}`)).toEqual(['s1:once', 's2:pending'])
    expect(requests.apply({ kind: 'delta', delta: { type: 'text-delta', step: 's2', text: 'x' } } as never)).toBe(false)
  })

  it('keeps every pending request and only the newest 20 settled ones', () => {
    const requests = new PermissionRequests()
    for (let i = 0; i < 30; i++) {
      requests.apply(requested(`r${i}`))
      requests.apply(event(EVENT.permissionExpired, { step: 's1', toolCallId: `r${i}` }))
    }
    requests.apply(requested('waiting'))
    expect(requests.list()).toHaveLength(21)
    expect(requests.list()[0]!.toolCallId).toBe('r10')
    expect(requests.pending().map((card) => card.toolCallId)).toEqual(['waiting'])
  })
})
