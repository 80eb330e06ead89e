import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { EventPayloads } from '../../objects/session/events/events.ts'
import { calculator } from '../../objects/tools/builtins/calculator.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { Tool } from '../../objects/tools/tool.ts'
import { z } from 'zod'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { scriptedSession } from '../support/runner-host.ts'
import { events, newSession, postJson, types, waitFor, waitIdle } from '../support/session.ts'

type Prompted = EventPayloads['session.next.prompted']
const promotions = (log: Stored[]) => log.filter((e) => e.type === 'session.next.prompted').map((e) => (e.payload as Prompted).messageIds)
const prompt = (id: string, body: Record<string, unknown>) => postJson(`/v1/sessions/${id}/prompt`, body)

describe('runner: delivery', () => {
  it('steer is promoted at the next safe boundary mid-loop; queue waits for idle, one at a time', async () => {
    const { id } = await newSession()
    // Turn 1 calls a tool that takes 1 s, so the loop has a second turn and the three prompts
    // below are admitted while it runs, even on a loaded machine (300 ms was not always enough).
    await prompt(id, { id: 'first', text: '/tool wait {"ms":1000}' })
    await waitFor(id, 'session.next.tool.called')
    await prompt(id, { id: 'q1', text: 'queued one', delivery: 'queue' })
    await prompt(id, { id: 'q2', text: 'queued two', delivery: 'queue' })
    await prompt(id, { id: 's1', text: 'steer now', delivery: 'steer' })
    await waitIdle(id)
    const log = await events(id)
    expect(promotions(log)).toEqual([['first'], ['s1'], ['q1'], ['q2']])
    // The steer joined the running loop: it was promoted before turn 2 of the same promotion began.
    const steer = log.findIndex((e) => e.type === 'session.next.prompted' && (e.payload as Prompted).messageIds[0] === 's1')
    expect(log[steer - 1]!.type).toBe('session.next.step.ended')
    expect((log[steer - 1]!.payload as { finish: string }).finish).toBe('tool-calls')
    expect(log[steer + 1]!.type).toBe('session.next.step.started')
  })

  it('caps provider turns per promotion with an explained halted event', () =>
    withLedger(uniqueName('cap'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register('calculator', calculator)
      let turns = 0
      // A vendor that asks for a tool on every turn: the loop would never end on its own.
      const session = scriptedSession(
        ledger,
        'session.cap',
        async function* () {
          turns++
          yield [
            { type: 'tool-call', id: `c${turns}`, name: 'calculator', input: { expression: '1+1' } },
            { type: 'finish', reason: 'tool-calls' },
          ]
        },
        { tools, maxTurns: 3 },
      )
      await session.runner.wake()
      expect(turns).toBe(3)
      const halted = ledger.byType('session.next.halted').items
      expect(halted.map((e) => e.payload)).toEqual([{ reason: 'turn-limit', limit: 3 }])
      expect(session.state()).toMatchObject({ loopOpen: false, run: null, pending: [] })
    }))
})

describe('runner: tools', () => {
  it('a tool whose output cannot be encoded fails as a coded outcome; the turn and the drain still end', () =>
    withLedger(uniqueName('encode'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register(
        'render',
        Tool.make({
          description: 'renders badly',
          input: z.object({}),
          output: z.object({}),
          execute: () => ({}),
          toModelOutput: () => {
            throw new Error('renderer exploded')
          },
        }),
      )
      let turns = 0
      const session = scriptedSession(
        ledger,
        'session.enc',
        async function* () {
          turns++
          yield turns === 1
            ? [{ type: 'tool-call', id: 'r1', name: 'render', input: {} }, { type: 'finish', reason: 'tool-calls' }]
            : [{ type: 'text-delta', text: 'done' }, { type: 'finish', reason: 'stop' }]
        },
        { tools },
      )
      await session.runner.wake()
      const failed = ledger.byType('session.next.tool.failed').items.map((e) => e.payload)
      expect(failed).toEqual([{ step: expect.any(String), toolCallId: 'r1', error: { code: 'TOOL_OUTPUT_INVALID', message: expect.stringContaining('renderer exploded') } }])
      expect(session.state()).toMatchObject({ run: null, loopOpen: false, step: null, running: {} })
      expect(turns).toBe(2)
    }))

  it('a turn that fails after recording its outcomes (its cost throws) records each outcome once, then the failure', () =>
    withLedger(uniqueName('end-throws'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register('calculator', calculator)
      const session = scriptedSession(ledger, 'session.endthrows', async function* () {
        yield [
          { type: 'tool-call', id: 'c1', name: 'calculator', input: { expression: '6*7' } },
          { type: 'tool-call', id: 'c2', name: 'calculator', input: { expression: '1/' } },
          { type: 'usage', inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 },
          { type: 'finish', reason: 'tool-calls' },
        ]
      }, { tools })
      session.host.cost = () => {
        throw new Error('the price table is unreadable')
      }
      await session.runner.wake()
      const outcomes = ledger.byTopic('session.endthrows', { limit: 100 }).items.filter((e) => /tool\.(succeeded|failed|cancelled)$/.test(e.type))
      expect(outcomes.map((e) => [e.type, (e.payload as { toolCallId: string }).toolCallId])).toEqual([
        ['session.next.tool.succeeded', 'c1'],
        ['session.next.tool.failed', 'c2'],
      ])
      expect(ledger.byType('session.next.step.failed').items.map((e) => e.payload)).toEqual([{ step: expect.any(String), error: { code: 'STEP_FAILED', message: expect.stringContaining('the price table is unreadable') } }])
      expect(ledger.byType('session.next.step.ended').items).toEqual([])
      expect(session.state()).toMatchObject({ run: null, loopOpen: false, step: null, running: {} })
    }))

  it('starts calls eagerly, settles all before the step ends, records outcomes in call order', async () => {
    const { id } = await newSession()
    await prompt(id, {
      text: ['/tool wait {"ms":200}', '/tool calculator {"expression":"6*7"}', '/tool memory_remember {"text":"the ledger ships on friday"}', '/tool calculator {"expression":"1/"}', '/tool nope {}'].join('\n'),
    })
    await waitIdle(id)
    const log = await events(id)
    const first = log.filter((e) => e.payload && (e.payload as { step?: string }).step === (log.find((x) => x.type === 'session.next.step.started')!.payload as { step: string }).step)
    expect(types(first)).toEqual(['step.started', 'tool.called', 'tool.called', 'tool.called', 'tool.called', 'tool.called', 'tool.succeeded', 'tool.succeeded', 'tool.succeeded', 'tool.failed', 'tool.failed', 'step.ended'])
    const outcomes = first.filter((e) => /tool\.(succeeded|failed)/.test(e.type)).map((e) => e.payload as Record<string, unknown>)
    expect(outcomes.map((o) => o.toolCallId)).toEqual(first.filter((e) => e.type === 'session.next.tool.called').map((e) => (e.payload as { toolCallId: string }).toolCallId))
    expect(outcomes[1]).toMatchObject({ content: '6*7 = 42' })
    expect(outcomes[3]).toMatchObject({ error: { code: 'CALCULATOR_SYNTAX' } })
    expect(outcomes[4]).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } })
    // The model saw the results on its next turn and answered with them.
    const answer = log.filter((e) => e.type === 'session.next.text').at(-1)!.payload as { text: string }
    expect(answer.text).toContain('42')
  })

  it('rejects input that does not match the tool schema without executing', async () => {
    const { id } = await newSession()
    await prompt(id, { text: '/tool wait {"ms":"soon"}' })
    await waitIdle(id)
    const failed = (await events(id)).find((e) => e.type === 'session.next.tool.failed')!
    expect(failed.payload).toMatchObject({ error: { code: 'TOOL_INPUT_INVALID' } })
  })

  it('remembers across turns of the session', async () => {
    const { id } = await newSession()
    await prompt(id, { text: '/tool memory_remember {"text":"plan: ship the ledger"}' })
    await waitIdle(id)
    await prompt(id, { text: '/tool memory_recall {"query":"ledger"}' })
    await waitIdle(id)
    const results = (await events(id)).filter((e) => e.type === 'session.next.tool.succeeded').map((e) => (e.payload as { content: string }).content)
    expect(results.at(-1)).toContain('ship the ledger')
  })
})

describe('runner: interrupt', () => {
  it('stops the running turn at once, cancels open calls (never a result), keeps pending prompts', async () => {
    const { id } = await newSession()
    await prompt(id, { id: 'long', text: '/tool wait {"ms":30000}' })
    await waitFor(id, 'session.next.tool.called')
    await prompt(id, { id: 'after', text: 'still here' })
    const res = await postJson(`/v1/sessions/${id}/interrupt`, {})
    expect(await res.json()).toMatchObject({ interrupted: true, pending: 1, message: 'the running turn was interrupted', step: expect.any(String) })
    await waitIdle(id)
    const log = await events(id)
    const names = types(log)
    expect(names).toContain('tool.cancelled')
    expect(names).not.toContain('tool.succeeded')
    expect(names).not.toContain('tool.failed')
    expect(names.indexOf('interrupted')).toBeGreaterThan(names.indexOf('tool.cancelled'))
    // The pending prompt survived the interrupt and ran afterwards.
    expect(promotions(log)).toEqual([['long'], ['after']])
    expect((log.filter((e) => e.type === 'session.next.text').at(-1)!.payload as { text: string }).text).toContain('still here')
  })

  it('interrupting an idle session is a no-op that says so', async () => {
    const { id } = await newSession()
    const res = await postJson(`/v1/sessions/${id}/interrupt`, {})
    expect(await res.json()).toEqual({ interrupted: false, step: null, request: null, pending: 0, message: 'nothing was running' })
    expect(types(await events(id))).toEqual(['created'])
  })
})

describe('runner: durable rows do not grow with streamed tokens', () => {
  it('a 10-token and a 2,000-token turn write the same number of rows', async () => {
    const small = await newSession()
    const large = await newSession()
    await prompt(small.id, { text: '/tokens 10' })
    await prompt(large.id, { text: '/tokens 2000' })
    await waitIdle(small.id)
    await waitIdle(large.id)
    const a = await events(small.id)
    const b = await events(large.id)
    expect(types(a)).toEqual(types(b))
    expect((b.find((e) => e.type === 'session.next.text')!.payload as { text: string }).text.split(' ')).toHaveLength(2000)
  })
})

describe('runner: a fault outside a turn\'s handling', () => {
  it('closes the open call and step durably with RUNNER_FAILED and halts: nothing stays running', () =>
    withLedger(uniqueName('fault'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register(
        'hold',
        Tool.make({
          description: 'runs until aborted',
          input: z.object({}),
          output: z.object({}),
          execute: (_input, { signal }) => new Promise<Record<string, never>>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
        }),
      )
      const session = scriptedSession(
        ledger,
        'session.fault',
        async function* () {
          yield [{ type: 'tool-call', id: 'h1', name: 'hold', input: {} }]
          throw new Error('vendor went away')
        },
        { tools },
      )
      // Storage refuses the turn's own close (its cancellation), once: the drain must close what is open.
      const record = session.host.record.bind(session.host)
      let refused = false
      ;(session.host as { record: typeof record }).record = (type, payload) => {
        if (type === 'session.next.tool.cancelled' && !refused) {
          refused = true
          throw new Error('storage down')
        }
        return record(type, payload)
      }
      await session.runner.wake()
      const failure = { code: 'RUNNER_FAILED', message: 'storage down' }
      const tail = ledger.byTopic('session.fault').items.slice(-4).map((e) => [e.type, e.payload])
      expect(refused).toBe(true)
      expect(tail).toEqual([
        ['session.next.tool.failed', { step: expect.any(String), toolCallId: 'h1', error: failure }],
        ['session.next.step.failed', { step: expect.any(String), error: failure }],
        ['session.next.halted', { reason: 'step-failed', limit: null }],
        ['session.next.drain.ended', { run: expect.any(String), reason: 'idle' }],
      ])
      expect(session.state()).toMatchObject({ run: null, step: null, running: {} })
    }))
})

describe('runner: provider failures', () => {
  it('a provider error fails the step with its code and halts the loop; the next prompt still runs', async () => {
    const { id } = await newSession()
    await prompt(id, { text: '/fail 401 bad key' })
    await waitIdle(id)
    await prompt(id, { text: 'after the failure' })
    await waitIdle(id)
    const log = await events(id)
    const failed = log.find((e) => e.type === 'session.next.step.failed')!
    expect(failed.payload).toMatchObject({ error: { code: 'PROVIDER_AUTH' } })
    expect(types(log)).toContain('halted')
    expect((log.filter((e) => e.type === 'session.next.text').at(-1)!.payload as { text: string }).text).toContain('after the failure')
  })

  it('a truncated stream is an error, not a success', async () => {
    const { id } = await newSession()
    await prompt(id, { text: 'partial\n/truncate' })
    await waitIdle(id)
    const failed = (await events(id)).find((e) => e.type === 'session.next.step.failed')!
    expect(failed.payload).toMatchObject({ error: { code: 'PROVIDER_STREAM_TRUNCATED' } })
  })
})
