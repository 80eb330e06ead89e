import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { ProviderError } from '../../objects/llm/errors.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { budgetOf } from '../../objects/session/turn/budget.ts'
import { SUMMARY_INSTRUCTION, SUMMARY_PREFIX } from '../../objects/session/turn/compaction.ts'
import { overflowAdvice } from '../../objects/session/turn/overflow-advice.ts'
import { emptySession, reduceSession } from '../../objects/session/events/projection.ts'
import { recover } from '../../objects/session/turn/recovery.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { scriptedSession } from '../support/runner-host.ts'
import { events, newSession, postJson, types, waitIdle } from '../support/session.ts'

type StepEnded = { usage: { inputTokens: number } | null }
const isCompaction = (request: LlmRequest) => String(request.messages.at(-1)?.content ?? '').startsWith(SUMMARY_INSTRUCTION)
const overflow = () => new ProviderError('PROVIDER_BAD_REQUEST', "This model's maximum context length is 4096 tokens.", { httpStatus: 400, vendorType: 'context_length_exceeded' })
const reply = (text: string): LlmEvent[] => [{ type: 'text-delta', text }, { type: 'finish', reason: 'stop' }]

describe('context budget and compaction on local/echo-small (4k window)', () => {
  it('a 500-turn session never fails, compacts repeatedly, and every prompt sent stays under the window', { timeout: 240_000 }, async () => {
    const { id } = await newSession('long', undefined, { model: 'local/echo-small' })
    const filler = 'the quick brown fox jumps over the lazy dog while the ledger folds every event'
    for (let turn = 1; turn <= 500; turn++) {
      const res = await postJson(`/v1/sessions/${id}/prompt`, { id: `p${turn}`, text: `turn ${turn}: ${filler}` })
      expect(res.status).toBe(202)
    }
    await waitIdle(id, 200_000)
    const log = await events(id)
    const names = types(log)
    expect(names).not.toContain('step.failed')
    expect(names).not.toContain('halted')
    // /history still pages through every event of every epoch: all 500 prompts, all their answers.
    expect(log.filter((e) => e.type === 'session.next.prompted')).toHaveLength(500)
    expect(log.filter((e) => e.type === 'session.next.step.ended')).toHaveLength(500)
    const ended = log.filter((e) => e.type === 'session.next.compaction.ended').map((e) => e.payload as { outcome: string })
    expect(ended.length).toBeGreaterThanOrEqual(10)
    expect(ended.every((e) => e.outcome === 'completed')).toBe(true)
    const sent = log.filter((e) => e.type === 'session.next.step.ended').map((e) => (e.payload as StepEnded).usage!.inputTokens)
    const budget = budgetOf({ context: 4096, output: 1024 })
    expect(Math.max(...sent)).toBeLessThanOrEqual(budget.window - budget.output)
    // Flat after the first compaction: the last 100 turns send no more than the 100 before the first one could.
    expect(Math.max(...sent.slice(400))).toBeLessThanOrEqual(budget.input + budget.margin)
    // The last answer still echoes the last prompt: the model kept the conversation's tail.
    expect((log.filter((e) => e.type === 'session.next.text').at(-1)!.payload as { text: string }).text).toContain('turn 500')
    expect(log.map((e) => e.seq)).toEqual([...log.map((e) => e.seq)].sort((a, b) => a - b))
  })

  it('one reply of a million tokens does not end the session: the next ten turns all answer', { timeout: 240_000 }, async () => {
    const { id } = await newSession('huge-reply', undefined, { model: 'local/echo-small' })
    expect((await postJson(`/v1/sessions/${id}/prompt`, { id: 'huge', text: '/tokens 1000000' })).status).toBe(202)
    await waitIdle(id, 200_000)
    const huge = (await events(id)).filter((e) => e.type === 'session.next.text').at(-1)!.payload as { text: string }
    expect(huge.text.length).toBeGreaterThan(5_000_000)
    for (let turn = 1; turn <= 10; turn++) {
      const after = (await events(id)).at(-1)!.seq
      expect((await postJson(`/v1/sessions/${id}/prompt`, { id: `p${turn}`, text: `short question ${turn}` })).status).toBe(202)
      await waitIdle(id, 60_000)
      const turnLog = (await events(id)).filter((e) => e.seq > after)
      expect(types(turnLog), `turn ${turn}`).not.toContain('halted')
      expect(types(turnLog), `turn ${turn}`).not.toContain('step.failed')
      expect((turnLog.filter((e) => e.type === 'session.next.text').at(-1)?.payload as { text: string } | undefined)?.text, `turn ${turn}`).toContain(`short question ${turn}`)
    }
    // No request the session sent was over the window: the compaction of the huge reply included.
    const log = await events(id)
    const budget = budgetOf({ context: 4096, output: 1024 })
    const ended = log.filter((e) => e.type === 'session.next.compaction.ended').map((e) => e.payload as { outcome: string; usage: { inputTokens: number } | null })
    expect(ended.length).toBeGreaterThan(0)
    expect(ended.every((e) => e.outcome === 'completed')).toBe(true)
    expect(Math.max(...ended.map((e) => e.usage!.inputTokens))).toBeLessThanOrEqual(budget.window - budget.output)
    const sent = log.filter((e) => e.type === 'session.next.step.ended').slice(1).map((e) => (e.payload as StepEnded).usage!.inputTokens)
    expect(Math.max(...sent)).toBeLessThanOrEqual(budget.window - budget.output)
  })

  it('after a compaction the model sees the summary first, then the kept tail', () =>
    withLedger(uniqueName('epoch'), async (ledger) => {
      const requests: LlmRequest[] = []
      const session = scriptedSession(
        ledger,
        'session.epoch',
        async function* (request) {
          requests.push(request)
          yield reply(isCompaction(request) ? 'SUMMARY: they said go many times' : 'x'.repeat(600))
        },
        { limits: { context: 1000, output: 100 } },
      )
      for (let i = 0; i < 8; i++) {
        session.host.record('session.next.admitted', { messageId: `m${i}`, delivery: 'queue', text: `go ${i}`, digest: 'd' })
      }
      await session.runner.wake()
      const compactions = requests.filter(isCompaction)
      expect(compactions.length).toBeGreaterThan(0)
      const after = requests[requests.indexOf(compactions[0]!) + 1]!
      expect(after.messages[0]).toEqual({ role: 'user', content: `${SUMMARY_PREFIX}SUMMARY: they said go many times` })
      expect(after.messages.at(-1)).toMatchObject({ role: 'user' })
      // The compaction turn offered no tools and capped its output.
      expect(compactions[0]!.tools).toBeUndefined()
      expect(compactions[0]!.maxOutputTokens).toBeGreaterThan(0)
      expect(session.state().epoch!.seq).toBeGreaterThan(0)
    }))

  it("an agent profile's compaction model summarises; the session's own model answers the turns", () =>
    withLedger(uniqueName('compaction-model'), async (ledger) => {
      const requests: LlmRequest[] = []
      const session = scriptedSession(
        ledger,
        'session.compaction-model',
        async function* (request) {
          requests.push(request)
          yield reply(isCompaction(request) ? 'SUMMARY: short' : 'x'.repeat(600))
        },
        { limits: { context: 1000, output: 100 }, compactionModel: { provider: 'local', model: 'summariser-1' } },
      )
      for (let i = 0; i < 8; i++) session.host.record('session.next.admitted', { messageId: `m${i}`, delivery: 'queue', text: `go ${i}`, digest: 'd' })
      await session.runner.wake()
      const compactions = requests.filter(isCompaction)
      expect(compactions.length).toBeGreaterThan(0)
      expect(compactions.every((r) => r.provider === 'local' && r.model === 'summariser-1')).toBe(true)
      expect(requests.filter((r) => !isCompaction(r)).every((r) => r.provider === 'test' && r.model === 'scripted')).toBe(true)
    }))

  it('a failed compaction is invisible: the epoch and what the model is shown do not change', () =>
    withLedger(uniqueName('invisible'), async (ledger) => {
      const requests: LlmRequest[] = []
      const session = scriptedSession(
        ledger,
        'session.invisible',
        async function* (request) {
          requests.push(request)
          if (isCompaction(request)) throw new ProviderError('PROVIDER_SERVER', 'summariser down', { httpStatus: 500 })
          yield reply('y'.repeat(900))
        },
        { limits: { context: 1000, output: 100 } },
      )
      for (let i = 0; i < 6; i++) session.host.record('session.next.admitted', { messageId: `m${i}`, delivery: 'queue', text: `go ${i}`, digest: 'd' })
      await session.runner.wake()
      const ended = ledger.byType('session.next.compaction.ended').items.map((e) => e.payload)
      expect(ended.length).toBeGreaterThan(0)
      expect(ended.every((p) => (p as { outcome: string }).outcome === 'failed')).toBe(true)
      // Still the first epoch: no compaction started a new one.
      expect(session.state().epoch).toMatchObject({ seq: 0 })
      expect(ledger.byType('session.next.epoch.started').items.map((e) => (e.payload as { reason: string }).reason)).toEqual(['start'])
      // The turn after the failed compaction was sent the whole transcript, unchanged.
      const turns = requests.filter((r) => !isCompaction(r))
      expect(turns.at(-1)!.messages[0]).toEqual({ role: 'user', content: 'go' })
    }))
})

describe('CONTEXT_OVERFLOW: one rebuild, never a loop', () => {
  const overflowing = (summarise: boolean) =>
    withLedger(uniqueName('overflow'), async (ledger) => {
      let calls = 0
      const session = scriptedSession(ledger, 'session.overflow', async function* (request) {
        calls++
        if (summarise && isCompaction(request)) return yield reply('a short summary')
        throw overflow()
      })
      session.host.record('session.next.admitted', { messageId: 'later', delivery: 'queue', text: 'later', digest: 'd2' })
      await session.runner.wake()
      const log = ledger.byTopic('session.overflow', { limit: 1000 }).items as Stored[]
      return { calls, log, state: session.state() }
    })

  it('a model that always overflows: turn, compaction, turn again, then a terminal CONTEXT_OVERFLOW saying what to do', async () => {
    const { calls, log } = await overflowing(true)
    const first = log.slice(0, log.findIndex((e) => e.type === 'session.next.halted') + 1)
    expect(types(first)).toEqual([
      'created', 'admitted', 'admitted', 'drain.started', 'epoch.started', 'prompted',
      'step.started', 'step.failed', 'compaction.started', 'compaction.ended', 'epoch.started', 'step.started', 'step.failed', 'halted',
    ])
    expect(first.at(-1)!.payload).toMatchObject({ reason: 'context-overflow', limit: null, error: { code: 'CONTEXT_OVERFLOW' } })
    // It says what is too large, measured; the 5-character prompt is not it.
    const { message } = (first.at(-1)!.payload as { error: { message: string } }).error
    expect(message).toMatch(/^even after compacting, the request is about \d+ tokens and does not fit /)
    expect(message).toContain('the kept conversation is about')
    expect(message).not.toContain('shorter prompt')
    expect((first.at(-2)!.payload as { error: { code: string } }).error.code).toBe('CONTEXT_OVERFLOW')
    // Two prompts, each: one turn, one rebuild, one retry. Bounded, and the drain ended.
    expect(calls).toBe(6)
    expect(types(log).at(-1)).toBe('drain.ended')
  })

  it('the halt names the part that does not fit and the change that fixes it', () => {
    const facts = { model: 'local/echo-small', window: 4096, prompt: 4, history: 300, system: 20, tools: 0 }
    expect(overflowAdvice({ ...facts, prompt: 9000 })).toContain('the latest prompt alone is about 9000 tokens: send a shorter prompt')
    expect(overflowAdvice({ ...facts, tools: 9000 })).toContain('the tool specs offered are about 9000 tokens: offer fewer tools')
    expect(overflowAdvice({ ...facts, system: 9000 })).toContain("shorten the session's system text")
    const failed = overflowAdvice({ ...facts, history: 9000, compactionError: { code: 'PROVIDER_BAD_REQUEST', message: 'too long' } })
    expect(failed).toMatch(/^compacting the conversation failed \(PROVIDER_BAD_REQUEST: too long\)/)
    expect(failed).toContain('truncate the session')
    expect(overflowAdvice(facts)).toContain('the catalog gives local/echo-small a 4096-token window')
    for (const advice of [overflowAdvice({ ...facts, tools: 9000 }), failed]) expect(advice).not.toContain('shorter prompt')
  })

  it('when the rebuild itself cannot complete, the loop halts after one compaction attempt', async () => {
    const { calls, log, state } = await overflowing(false)
    expect(calls).toBe(4)
    expect(log.filter((e) => e.type === 'session.next.halted').map((e) => (e.payload as { reason: string }).reason)).toEqual(['context-overflow', 'context-overflow'])
    expect(state).toMatchObject({ loopOpen: false, run: null, epoch: { seq: 0 } })
  })
})

describe('a crash mid-compaction', () => {
  it('recovery ends it as failed (ABANDONED): the epoch is unchanged, the loop resumes', () =>
    withLedger(uniqueName('midcompact'), (ledger) => {
      const topic = 'session.midcompact'
      let parent: string | null = null
      const append = (type: string, payload: unknown) => (parent = ledger.append({ topic, type, author: 'test', parent, payload }).envelope.id)
      append('session.next.created', { model: 'echo-small', provider: 'local', title: null, system: null, owner: 'o', share: [] })
      append('session.next.admitted', { messageId: 'm', delivery: 'queue', text: 'go', digest: 'd' })
      append('session.next.drain.started', { run: 'r1' })
      append('session.next.prompted', { messageIds: ['m'] })
      append('session.next.compaction.started', { id: 'c1', reason: 'budget', estimate: 3000, budget: 2867 })
      const crashed = ledger.fold(topic, reduceSession, emptySession()).state
      expect(crashed.compaction).toBe('c1')
      recover(crashed, ((type: string, payload: unknown) => append(type, payload)) as never)
      const state = ledger.fold(topic, reduceSession, emptySession()).state
      expect(ledger.byType('session.next.compaction.ended').items.map((e) => e.payload)).toEqual([{ id: 'c1', outcome: 'failed', error: { code: 'ABANDONED', message: 'abandoned by restart' } }])
      expect(state).toMatchObject({ compaction: null, epoch: null, loopOpen: true, run: null })
    }))
})

describe('an interrupt naming a running compaction', () => {
  it('stops it: the compaction is invisible and the loop closes', { timeout: 20_000 }, () =>
    withLedger(uniqueName('stopcompact'), async (ledger) => {
      let compacting: (() => void) | null = null
      const session = scriptedSession(
        ledger,
        'session.stopcompact',
        async function* (request, signal) {
          // The first compaction hangs until interrupted; later ones (the pending prompts run on) answer.
          if (!isCompaction(request) || compacting) return yield reply(isCompaction(request) ? 'summary' : 'z'.repeat(1200))
          await new Promise<void>((resolve) => {
            compacting = resolve
            signal.addEventListener('abort', () => resolve())
          })
          signal.throwIfAborted()
          yield reply('never used')
        },
        { limits: { context: 1000, output: 100 } },
      )
      for (let i = 0; i < 4; i++) session.host.record('session.next.admitted', { messageId: `m${i}`, delivery: 'queue', text: `go ${i}`, digest: 'd' })
      const drained = session.runner.wake()
      while (!compacting) await new Promise((r) => setTimeout(r, 1))
      const id = session.state().compaction!
      expect(session.runner.interrupt('some-other-turn', 'r0')).toBe(false)
      expect(session.runner.interrupt(id, 'r1', 'stop compacting')).toBe(true)
      await drained
      const ended = ledger.byType('session.next.compaction.ended').items.map((e) => e.payload)
      expect(ended[0]).toEqual({ id, outcome: 'interrupted', error: { code: 'INTERRUPTED', message: 'stop compacting' } })
      expect(ledger.byType('session.next.interrupted').items[0]!.payload).toEqual({ step: id, reason: 'stop compacting', request: 'r1' })
      // The interrupted compaction changed nothing; the pending prompts ran on afterwards.
      const interruptedAt = ledger.byType('session.next.interrupted').items[0]!.seq
      const epochs = ledger.byType('session.next.epoch.started').items
      expect(epochs.filter((e) => e.seq < interruptedAt).map((e) => (e.payload as { reason: string }).reason)).toEqual(['start'])
      expect(session.state()).toMatchObject({ compaction: null, run: null, pending: [] })
    }))
})
