/**
 * Every session event the system writes satisfies its type's registered payload schema
 * (event-schemas.ts), and every type of the vocabulary has one. Real turns write the events:
 * sessions over HTTP on the local model (tools, reasoning, a failed tool, retries and a failed
 * step, an interrupt mid-tool, truncation, a fork) and the real runner on a scripted model for
 * what a local reply cannot reach cheaply (compaction on budget and on overflow, a turn limit,
 * changed context sources). Each event is checked by the real schema registry (the JSON Schema
 * validator every ledger uses).
 */
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { ProviderError } from '../../objects/llm/errors.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { SUMMARY_INSTRUCTION } from '../../objects/session/turn/compaction.ts'
import { EVENT_SCHEMAS, eventSchemaRef, registerEventSchemas } from '../../objects/session/events/event-schemas.ts'
import { EVENT, EVENT_TYPES, type EventType } from '../../objects/session/events/events.ts'
import { calculator } from '../../objects/tools/builtins/calculator.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { refusals } from '../support/schemas.ts'
import { OWNER, scriptedSession } from '../support/runner-host.ts'
import { Tool } from '../../objects/tools/tool.ts'
import { z } from 'zod'
import { events, newSession, postJson, waitFor, waitIdle } from '../support/session.ts'

const isCompaction = (request: LlmRequest) => String(request.messages.at(-1)?.content ?? '').startsWith(SUMMARY_INSTRUCTION)
const reply = (text: string): LlmEvent[] => [{ type: 'text-delta', text }, { type: 'finish', reason: 'stop' }]
const overflow = () => new ProviderError('PROVIDER_BAD_REQUEST', "This model's maximum context length is 4096 tokens.", { httpStatus: 400, vendorType: 'context_length_exceeded' })

async function prompt(id: string, text: string): Promise<void> {
  const res = await postJson(`/v1/sessions/${id}/prompt`, { text })
  expect(res.status, await res.clone().text()).toBe(202)
  await waitIdle(id)
}

/** Sessions over HTTP: every kind of turn a local reply can ask for, then a truncation and a fork. */
async function httpEvents(): Promise<Stored[]> {
  const { id } = await newSession('schemas', undefined, { title: 'schemas', system: 'be brief' })
  await prompt(id, '/think adding first\n/tool calculator {"expression":"2+3"}')
  await prompt(id, '/tool no_such_tool {}')
  await prompt(id, '/fail 503 busy for now')
  await prompt(id, '/fail 400 a bad request')
  // An interrupt while a tool runs: the control entry, the cancelled call, the interrupted turn.
  const before = (await events(id)).at(-1)!.seq
  const res = await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool wait {"ms":30000}' })
  expect(res.status).toBe(202)
  const called = await waitFor(id, EVENT.toolCalled, before)
  expect((await postJson(`/v1/sessions/${id}/interrupt`, { step: (called.payload as { step: string }).step })).status).toBe(200)
  await waitIdle(id)
  await prompt(id, 'after the interrupt')
  const log = await events(id)
  const rest = log.filter((e) => e.type === EVENT.stepEnded).at(-1)!
  expect((await postJson(`/v1/sessions/${id}/truncate`, { at: rest.seq })).status).toBe(200)
  await prompt(id, 'after the cut')
  const at = (await events(id)).filter((e) => e.type === EVENT.stepEnded).at(-1)!.seq
  expect((await postJson(`/v1/sessions/${id}/fork`, { at, id: `${id}-fork` })).status).toBe(201)
  await prompt(`${id}-fork`, 'in the fork')
  return [...(await events(id)), ...(await events(`${id}-fork`))]
}

/** The real runner on scripted models: compaction on budget and on overflow, a turn limit, changed sources. */
async function scriptedEvents(): Promise<Stored[]> {
  const all: Stored[] = []
  await withLedger(uniqueName('budget'), async (ledger) => {
    const session = scriptedSession(ledger, 'session.budget', async function* (request) {
      yield reply(isCompaction(request) ? 'SUMMARY: they said go many times' : 'x'.repeat(600))
    }, { limits: { context: 1000, output: 100 } })
    for (let i = 0; i < 8; i++) session.host.record(EVENT.admitted, { messageId: `m${i}`, delivery: 'queue', text: `go ${i}`, digest: 'd' })
    await session.runner.wake()
    all.push(...ledger.byTopic('session.budget', { limit: 1000 }).items)
  })
  await withLedger(uniqueName('overflow'), async (ledger) => {
    const session = scriptedSession(ledger, 'session.overflow', async function* (request) {
      if (isCompaction(request)) return yield reply('a short summary')
      throw overflow()
    })
    await session.runner.wake()
    all.push(...ledger.byTopic('session.overflow', { limit: 1000 }).items)
  })
  await withLedger(uniqueName('limit'), async (ledger) => {
    const tools = new ToolRegistry()
    tools.register('calculator', calculator)
    let values = 0
    const session = scriptedSession(ledger, 'session.limit', async function* () {
      yield [{ type: 'tool-call', id: `c${values}`, name: 'calculator', input: { expression: '1+1' } }, { type: 'finish', reason: 'tool-calls' }]
    }, { tools, maxTurns: 2, sources: () => ({ 'env.turn': `turn ${++values}` }) })
    await session.runner.wake()
    all.push(...ledger.byTopic('session.limit', { limit: 1000 }).items)
  })
  await withLedger(uniqueName('approvals'), async (ledger) => {
    // A tool that asks before acting: answered "always" on the first turn, left to expire on the second.
    const tools = new ToolRegistry()
    tools.register('act', Tool.make({
      description: 'acts after asking',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      execute: async (_input, context) => (await context.permission.assert({ tool: `act`, source: 'builtin', subjects: [context.toolCallId], input: {} }), { ok: true }),
    }))
    let turn = 0
    const session = scriptedSession(ledger, 'session.approvals', async function* () {
      turn++
      if (turn > 2) return yield reply('done')
      yield [{ type: 'tool-call', id: `a${turn}`, name: 'act', input: {} }, { type: 'finish', reason: 'tool-calls' }]
    }, { tools, permission: { askTimeoutSeconds: 0.2 } })
    const drain = session.runner.wake()
    while (!session.state().asks.a1) await new Promise((resolve) => setTimeout(resolve, 5))
    session.approvals.answer(OWNER, { toolCallId: 'a1', reply: 'always' })
    await drain
    all.push(...ledger.byTopic('session.approvals', { limit: 1000 }).items)
  })
  return all
}

describe('session event payload schemas', () => {
  it('every type of the vocabulary has a schema, and the registry takes each under its ref', () =>
    withLedger(uniqueName('schemas'), (ledger) => {
      const types = Object.values(EVENT)
      expect(types.filter((type) => !(type in EVENT_SCHEMAS))).toEqual([])
      expect(Object.keys(EVENT_SCHEMAS).filter((type) => !EVENT_TYPES.has(type))).toEqual([])
      registerEventSchemas(ledger.schemas)
      expect(types.filter((type) => ledger.schemas.find(eventSchemaRef(type))?.plane !== 3)).toEqual([])
      // Registering again is a no-op, not a conflict.
      registerEventSchemas(ledger.schemas)
    }))

  it('a payload off its schema is refused with SCHEMA_VIOLATION', () =>
    withLedger(uniqueName('schemas'), (ledger) => {
      registerEventSchemas(ledger.schemas)
      const cases: [EventType, unknown][] = [
        [EVENT.text, { step: 's1' }],
        [EVENT.text, { step: 's1', text: 'hi', extra: true }],
        [EVENT.stepEnded, { step: 's1', finish: 'done', usage: null, cost: null }],
        [EVENT.compactionEnded, { id: 'c', outcome: 'completed', error: { code: 'X', message: 'y' } }],
        [EVENT.epochStarted, { baseline: 'not-an-artifact', after: 0, reason: 'start' }],
      ]
      for (const [type, payload] of cases) {
        expect(() => ledger.schemas.validate(eventSchemaRef(type), payload), `${type} ${JSON.stringify(payload)}`).toThrow(
          expect.objectContaining({ code: 'SCHEMA_VIOLATION' }),
        )
      }
    }))

  it('every event real turns write satisfies its registered schema', { timeout: 60_000 }, async () => {
    const written = [...(await httpEvents()), ...(await scriptedEvents())]
    await withLedger(uniqueName('schemas'), (ledger) => {
      registerEventSchemas(ledger.schemas)
      expect(refusals(ledger, written, EVENT_TYPES, (type) => eventSchemaRef(type as EventType))).toEqual([])
    })
    // The turns reached every type of the vocabulary, so no schema went unchecked.
    const seen = new Set(written.map((event) => event.type))
    expect(Object.values(EVENT).filter((type) => !seen.has(type))).toEqual([])
  })
})
