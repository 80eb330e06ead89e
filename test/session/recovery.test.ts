/**
 * Crash recovery never retries the same failure forever: a turn abandoned by a restart is
 * failed and the loop resumes once; when the turn the loop resumed with is abandoned by a
 * restart too (a tool whose validation, or a call, kills the process every time), it is failed
 * durably with `ABANDONED_TWICE` and the loop halts, so the next wake has nothing to redo.
 * A turn that ends, or a new prompt, starts the count again.
 */
import { describe, expect, it } from 'vitest'
import type { Ledger } from '../../objects/ledger/ledger.ts'
import { emptySession, reduceSession, type SessionState } from '../../objects/session/events/projection.ts'
import { recover } from '../../objects/session/turn/recovery.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'

/** A session log written by hand, and the recovery a wake runs on it. */
function log(ledger: Ledger, topic: string) {
  let parent: string | null = null
  const append = (type: string, payload: unknown) => (parent = ledger.append({ topic, type: `session.next.${type}`, author: 'test', parent, payload }).envelope.id)
  const state = (): SessionState => ledger.fold(topic, reduceSession, emptySession()).state
  const types = () => ledger.byTopic(topic, { limit: 1000 }).items.map((e) => e.type.replace('session.next.', ''))
  const wake = () => recover(state(), ((type: string, payload: unknown) => append(type.replace('session.next.', ''), payload)) as never)
  append('created', { model: 'echo-small', provider: 'local', title: null, system: null, owner: 'o', share: [] })
  return { append, state, types, wake }
}

/** A drain that starts turn `step`, calls a tool in it, and dies there. */
function dieInTurn(session: ReturnType<typeof log>, step: string): void {
  session.append('drain.started', { run: `r-${step}` })
  session.append('step.started', { step, turn: 1, provider: 'local', model: 'echo-small' })
  session.append('tool.called', { step, toolCallId: `call-${step}`, name: 'mcp.evil.lookup', input: { q: 'aaaa' } })
}

describe('recovery of a turn abandoned by restart', () => {
  it('fails it and resumes the loop once; abandoned again, fails it ABANDONED_TWICE and halts', () =>
    withLedger(uniqueName('abandon'), (ledger) => {
      const session = log(ledger, 'session.abandon')
      session.append('admitted', { messageId: 'm', delivery: 'queue', text: 'go', digest: 'd' })
      session.append('drain.started', { run: 'r0' })
      session.append('prompted', { messageIds: ['m'] })
      session.append('step.started', { step: 's1', turn: 1, provider: 'local', model: 'echo-small' })
      session.append('tool.called', { step: 's1', toolCallId: 'call-s1', name: 'mcp.evil.lookup', input: { q: 'aaaa' } })
      expect(session.wake()).toBe(true)
      expect(session.state()).toMatchObject({ loopOpen: true, step: null, run: null, running: {} })

      dieInTurn(session, 's2')
      expect(session.wake()).toBe(true)
      const failed = ledger.byType('session.next.step.failed').items.map((e) => e.payload)
      expect(failed).toEqual([
        { step: 's1', error: { code: 'ABANDONED', message: 'abandoned by restart' } },
        { step: 's2', error: { code: 'ABANDONED_TWICE', message: expect.stringContaining('not retried') } },
      ])
      expect(ledger.byType('session.next.tool.failed').items.map((e) => (e.payload as { error: { code: string } }).error.code)).toEqual(['ABANDONED', 'ABANDONED'])
      expect(session.types().slice(-4)).toEqual(['tool.failed', 'step.failed', 'halted', 'drain.ended'])
      expect(ledger.byType('session.next.halted').items.at(-1)!.payload).toMatchObject({ reason: 'step-failed', error: { code: 'ABANDONED_TWICE' } })
      // Nothing is left to redo: the next wake records nothing.
      expect(session.state()).toMatchObject({ loopOpen: false, step: null, run: null, pending: [] })
      const before = session.types().length
      expect(session.wake()).toBe(false)
      expect(session.types()).toHaveLength(before)
    }))

  it('a turn that ends between two restarts, or a new prompt, starts the count again', () =>
    withLedger(uniqueName('abandon-reset'), (ledger) => {
      const session = log(ledger, 'session.abandon-reset')
      session.append('admitted', { messageId: 'm', delivery: 'queue', text: 'go', digest: 'd' })
      session.append('prompted', { messageIds: ['m'] })
      dieInTurn(session, 's1')
      session.wake()
      session.append('drain.started', { run: 'r1' })
      session.append('step.started', { step: 's2', turn: 1, provider: 'local', model: 'echo-small' })
      session.append('step.ended', { step: 's2', finish: 'tool-calls', usage: null, cost: null })
      session.append('drain.ended', { run: 'r1', reason: 'idle' })
      dieInTurn(session, 's3')
      session.wake()
      expect(session.state().loopOpen).toBe(true)
      dieInTurn(session, 's4')
      session.wake()
      expect(session.state().loopOpen).toBe(false)
      // After the halt, a new prompt is a fresh start: one restart is survived again.
      session.append('admitted', { messageId: 'm2', delivery: 'queue', text: 'again', digest: 'd2' })
      session.append('prompted', { messageIds: ['m2'] })
      dieInTurn(session, 's5')
      session.wake()
      expect(session.state().loopOpen).toBe(true)
      expect(ledger.byType('session.next.step.failed').items.map((e) => (e.payload as { error: { code: string } }).error.code)).toEqual(['ABANDONED', 'ABANDONED', 'ABANDONED_TWICE', 'ABANDONED'])
    }))

  it('a compaction abandoned twice in a row halts the loop the same way', () =>
    withLedger(uniqueName('abandon-compaction'), (ledger) => {
      const session = log(ledger, 'session.abandon-compaction')
      session.append('admitted', { messageId: 'm', delivery: 'queue', text: 'go', digest: 'd' })
      session.append('prompted', { messageIds: ['m'] })
      for (const id of ['c1', 'c2']) {
        session.append('drain.started', { run: `r-${id}` })
        session.append('compaction.started', { id, reason: 'budget', estimate: 3000, budget: 2867 })
        session.wake()
      }
      expect(ledger.byType('session.next.compaction.ended').items.map((e) => (e.payload as { error: { code: string } }).error.code)).toEqual(['ABANDONED', 'ABANDONED_TWICE'])
      expect(session.state()).toMatchObject({ loopOpen: false, compaction: null })
    }))
})
