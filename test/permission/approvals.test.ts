/**
 * The approval flow (objects/permission/approvals.ts) on the real runner over a real ledger, with a
 * scripted vendor asking for a tool that asserts policy before its side effect: an ask parks the
 * call and records `permission.requested`; once runs it, reject fails it `PERMISSION_DENIED` (the
 * model reads why), always adds the rule so the next call runs without asking; expiry fails it
 * `PERMISSION_TIMEOUT`; an interrupt cancels it; answers are checked before anything is written;
 * the step's other calls run while one is parked; a step parked across a restart resumes.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { JsonObject } from '../../objects/ledger/json.ts'
import type { Ledger } from '../../objects/ledger/ledger.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { EVENT } from '../../objects/session/events/events.ts'
import { recover } from '../../objects/session/turn/recovery.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { Tool } from '../../objects/tools/tool.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { OWNER, scriptedSession } from '../support/runner-host.ts'
import type { PermissionLayers } from '../../objects/permission/approvals.ts'

/** A tool with a side effect (it pushes to `done`), asserting policy first as every such tool does. */
function tools(done: string[]) {
  const registry = new ToolRegistry()
  registry.register(
    'deploy',
    Tool.make({
      description: 'deploys a target',
      input: z.object({ target: z.string() }),
      output: z.object({ deployed: z.string() }),
      execute: async ({ target }, context) => {
        await context.permission.assert({ tool: 'deploy', source: 'builtin', subjects: [], input: { target }, reason: `deploy ${target}` })
        done.push(target)
        return { deployed: target }
      },
    }),
  )
  registry.register(
    'note',
    Tool.make({
      description: 'notes a text (reads nothing, asks nothing)',
      input: z.object({ text: z.string() }),
      output: z.object({ ok: z.boolean() }),
      execute: ({ text }) => (done.push(`note:${text}`), { ok: true }),
    }),
  )
  return registry
}

type Call = { id: string; name: string; input: JsonObject }

/** A vendor that asks for `turns[i]`'s calls on turn i, then answers text; it keeps each request. */
function vendor(turns: Call[][], requests: LlmRequest[] = []) {
  return async function* (request: LlmRequest): AsyncIterable<LlmEvent[]> {
    requests.push(request)
    const calls = turns[requests.length - 1]
    if (!calls) return yield [{ type: 'text-delta', text: 'done' }, { type: 'finish', reason: 'stop' }]
    yield [...calls.map((call) => ({ type: 'tool-call' as const, ...call })), { type: 'finish', reason: 'tool-calls' }]
  }
}

const deploy = (id: string, target = 'prod'): Call => ({ id, name: 'deploy', input: { target } })
const types = (ledger: Ledger, topic: string) => ledger.byTopic(topic, { limit: 1000 }).items.map((e) => e.type.replace('session.next.', ''))
const payloadsOf = (ledger: Ledger, type: string) => ledger.byType(`session.next.${type}`).items.map((e) => e.payload as Record<string, any>)

/** Polls until the session holds a pending request for `toolCallId` (the runner runs on its own). */
async function asked(session: ReturnType<typeof scriptedSession>, toolCallId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (session.state().asks[toolCallId]) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`no request for ${toolCallId}`)
}

function open(ledger: Ledger, topic: string, turns: Call[][], options: { permission?: PermissionLayers; now?: () => number; existing?: boolean } = {}) {
  const done: string[] = []
  const requests: LlmRequest[] = []
  const session = scriptedSession(ledger, topic, vendor(turns, requests), { tools: tools(done), ...options })
  return { session, done, requests }
}

describe('approvals: ask, answer, run', () => {
  it('an ask parks the call with a durable request; once runs it', () =>
    withLedger(uniqueName('once'), async (ledger) => {
      const { session, done } = open(ledger, 'session.once', [[deploy('c1')]])
      const drain = session.runner.wake()
      await asked(session, 'c1')
      expect(done).toEqual([])
      expect(payloadsOf(ledger, 'permission.requested')).toEqual([
        { step: expect.any(String), toolCallId: 'c1', tool: 'deploy', source: 'builtin', subjects: [], input: { target: 'prod' }, reason: 'deploy prod', expiresAt: expect.any(Number) },
      ])
      expect(session.approvals.pending().map((p) => p.toolCallId)).toEqual(['c1'])
      expect(session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })).toEqual({ toolCallId: 'c1', reply: 'once', rules: [], duplicate: false })
      await drain
      expect(done).toEqual(['prod'])
      expect(types(ledger, 'session.once')).toContain('permission.answered')
      expect(payloadsOf(ledger, 'tool.succeeded').map((p) => p.toolCallId)).toEqual(['c1'])
      expect(session.approvals.pending()).toEqual([])
    }))

  it('reject fails the call PERMISSION_DENIED with the reason, and the model reads it', () =>
    withLedger(uniqueName('reject'), async (ledger) => {
      const { session, done, requests } = open(ledger, 'session.reject', [[deploy('c1')]])
      const drain = session.runner.wake()
      await asked(session, 'c1')
      session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'reject', reason: 'not on a Friday' })
      await drain
      expect(done).toEqual([])
      expect(payloadsOf(ledger, 'tool.failed')).toEqual([{ step: expect.any(String), toolCallId: 'c1', error: { code: 'PERMISSION_DENIED', message: 'the owner rejected the call: not on a Friday' } }])
      const toolMessage = requests[1]!.messages.find((m) => m.role === 'tool')
      expect(toolMessage).toMatchObject({ toolCallId: 'c1', isError: true })
      expect(JSON.stringify(toolMessage)).toContain('not on a Friday')
    }))

  it('always adds the rule to the session layer: the next call runs without asking', () =>
    withLedger(uniqueName('always'), async (ledger) => {
      const { session, done } = open(ledger, 'session.always', [[deploy('c1')], [deploy('c2', 'staging')]])
      const drain = session.runner.wake()
      await asked(session, 'c1')
      expect(session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'always' }).rules).toEqual([{ tool: 'deploy', action: 'allow' }])
      await drain
      expect(done).toEqual(['prod', 'staging'])
      expect(session.sessionRules).toEqual([{ tool: 'deploy', action: 'allow' }])
      expect(payloadsOf(ledger, 'permission.requested').map((p) => p.toolCallId)).toEqual(['c1'])
      expect(payloadsOf(ledger, 'permission.answered')).toEqual([{ step: expect.any(String), toolCallId: 'c1', reply: 'always', by: OWNER, rules: [{ tool: 'deploy', action: 'allow' }] }])
    }))

  it('allow runs without a request; deny fails PERMISSION_DENIED without one', () =>
    withLedger(uniqueName('rules'), async (ledger) => {
      const allowed = open(ledger, 'session.allowed', [[deploy('c1')]], { permission: { principal: [{ tool: 'deploy', action: 'allow' }] } })
      await allowed.session.runner.wake()
      expect(allowed.done).toEqual(['prod'])
      // A deny is a floor: a session rule allowing the tool does not lift the principal's deny.
      const denied = open(ledger, 'session.denied', [[deploy('c1')]], { permission: { principal: [{ tool: 'deploy', action: 'deny' }], session: [{ tool: 'deploy', action: 'allow' }] } })
      await denied.session.runner.wake()
      expect(denied.done).toEqual([])
      expect(types(ledger, 'session.denied')).not.toContain('permission.requested')
      expect(payloadsOf(ledger, 'tool.failed').map((p) => p.error.code)).toEqual(['PERMISSION_DENIED'])
    }))

  it("the step's other calls run while one is parked", () =>
    withLedger(uniqueName('parallel'), async (ledger) => {
      const { session, done } = open(ledger, 'session.parallel', [[deploy('c1'), { id: 'c2', name: 'note', input: { text: 'meanwhile' } }]])
      const drain = session.runner.wake()
      await asked(session, 'c1')
      expect(done).toEqual(['note:meanwhile'])
      session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })
      await drain
      expect(done).toEqual(['note:meanwhile', 'prod'])
      // Outcomes are still recorded in call order.
      expect(payloadsOf(ledger, 'tool.succeeded').map((p) => p.toolCallId)).toEqual(['c1', 'c2'])
    }))
})

describe('approvals: expiry, interrupt, answers checked', () => {
  it('an unanswered request expires: PERMISSION_TIMEOUT, and a late answer is refused writing nothing', () =>
    withLedger(uniqueName('expiry'), async (ledger) => {
      const { session, done } = open(ledger, 'session.expiry', [[deploy('c1')]], { permission: { askTimeoutSeconds: 0.05 } })
      await session.runner.wake()
      expect(done).toEqual([])
      expect(types(ledger, 'session.expiry')).toContain('permission.expired')
      expect(payloadsOf(ledger, 'tool.failed').map((p) => p.error.code)).toEqual(['PERMISSION_TIMEOUT'])
      const before = types(ledger, 'session.expiry').length
      expect(() => session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })).toThrow(expect.objectContaining({ code: 'PERMISSION_SETTLED' }))
      expect(types(ledger, 'session.expiry')).toHaveLength(before)
    }))

  it("the alarm's expireDue expires a request whose timer is gone", () =>
    withLedger(uniqueName('expire-due'), async (ledger) => {
      let now = Date.now()
      const { session } = open(ledger, 'session.expire-due', [[deploy('c1')]], { now: () => now })
      const drain = session.runner.wake()
      await asked(session, 'c1')
      const expiresAt = session.state().asks.c1!.expiresAt
      expect(session.approvals.expireDue(expiresAt - 1)).toBe(expiresAt)
      expect(types(ledger, 'session.expire-due')).not.toContain('permission.expired')
      now = expiresAt
      expect(session.approvals.expireDue(now)).toBeNull()
      await drain
      expect(payloadsOf(ledger, 'tool.failed').map((p) => p.error.code)).toEqual(['PERMISSION_TIMEOUT'])
    }))

  it('an interrupt cancels the parked call; an answer after it is refused', () =>
    withLedger(uniqueName('interrupt'), async (ledger) => {
      const { session, done } = open(ledger, 'session.interrupt', [[deploy('c1')]])
      const drain = session.runner.wake()
      await asked(session, 'c1')
      expect(session.runner.interrupt(session.state().step!, 'req-1')).toBe(true)
      await drain
      expect(done).toEqual([])
      expect(payloadsOf(ledger, 'tool.cancelled').map((p) => p.toolCallId)).toEqual(['c1'])
      expect(session.approvals.pending()).toEqual([])
      expect(() => session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })).toThrow(expect.objectContaining({ code: 'PERMISSION_SETTLED', details: expect.objectContaining({ outcome: 'cancelled' }) }))
    }))

  it('a retried answer is idempotent; unknown, settled-otherwise and not-the-owner are refused writing nothing', () =>
    withLedger(uniqueName('retry'), async (ledger) => {
      const { session } = open(ledger, 'session.retry', [[deploy('c1')]])
      const drain = session.runner.wake()
      await asked(session, 'c1')
      const count = () => types(ledger, 'session.retry').length
      let before = count()
      expect(() => session.approvals.answer('user#mallory', { toolCallId: 'c1', reply: 'once' })).toThrow(expect.objectContaining({ code: 'PERMISSION_OWNER_ONLY', status: 403 }))
      expect(() => session.approvals.answer(OWNER, { toolCallId: 'nope', reply: 'once' })).toThrow(expect.objectContaining({ code: 'PERMISSION_UNKNOWN', status: 404 }))
      expect(count()).toBe(before)
      session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })
      await drain
      before = count()
      expect(session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })).toEqual({ toolCallId: 'c1', reply: 'once', rules: [], duplicate: true })
      expect(() => session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'reject' })).toThrow(expect.objectContaining({ code: 'PERMISSION_SETTLED', status: 409 }))
      expect(count()).toBe(before)
      expect(payloadsOf(ledger, 'permission.answered')).toHaveLength(1)
    }))
})

describe('approvals: restart', () => {
  it('a step parked across a restart resumes: the answer runs the call once, and the loop goes on', () =>
    withLedger(uniqueName('restart'), async (ledger) => {
      const topic = 'session.restart'
      const first = open(ledger, topic, [[deploy('c1'), { id: 'c2', name: 'note', input: { text: 'x' } }]])
      void first.session.runner.wake()
      await asked(first.session, 'c1')
      // The process dies here: the first incarnation is dropped (its drain never ends); a new one wakes on the same log.
      const second = open(ledger, topic, [], { existing: true })
      expect(recover(second.session.state(), (type, payload) => second.session.host.record(type, payload))).toBe(true)
      // The parked step stays open; the note call that had finished in memory only is failed, not re-run.
      expect(second.session.state()).toMatchObject({ step: expect.any(String), running: { c1: 'deploy' } })
      expect(payloadsOf(ledger, 'step.failed')).toEqual([])
      expect(payloadsOf(ledger, 'tool.failed').map((p) => [p.toolCallId, p.error.code])).toEqual([['c2', 'ABANDONED']])
      const drain = second.session.runner.wake()
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(second.done).toEqual([])
      expect(payloadsOf(ledger, 'permission.requested')).toHaveLength(1)
      second.session.approvals.answer(OWNER, { toolCallId: 'c1', reply: 'once' })
      await drain
      expect(second.done).toEqual(['prod'])
      expect(payloadsOf(ledger, 'tool.succeeded').map((p) => p.toolCallId)).toEqual(['c1'])
      const log = types(ledger, topic)
      expect(log.filter((t) => t === 'step.ended')).toHaveLength(2)
      expect(log.slice(-3)).toEqual(['text', 'step.ended', 'drain.ended'])
      expect(EVENT.permissionAnswered).toBe('session.next.permission.answered')
    }))
})
