import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { SUMMARY_INSTRUCTION } from '../../objects/session/turn/compaction.ts'
import { ContextSources, UNAVAILABLE } from '../../objects/session/turn/context-sources.ts'
import { CONTEXT_UPDATE_PREFIX, readBaseline } from '../../objects/session/turn/epoch.ts'
import { rebuildRequest } from '../../objects/session/lineage/rebuild.ts'
import { calculator } from '../../objects/tools/builtins/calculator.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { scriptedSession } from '../support/runner-host.ts'
import { events, newSession, postJson, waitIdle } from '../support/session.ts'

const isCompaction = (request: LlmRequest) => String(request.messages.at(-1)?.content ?? '').startsWith(SUMMARY_INSTRUCTION)
const typesOf = (log: Stored[]) => log.map((e) => e.type.replace('session.next.', ''))

describe('context epochs and sources', () => {
  it('a source change during a running turn reaches the model at the next boundary, never inside the turn', () =>
    withLedger(uniqueName('boundary'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register('calculator', calculator)
      let instructions = 'use metric units'
      const requests: LlmRequest[] = []
      const session = scriptedSession(
        ledger,
        'session.boundary',
        async function* (request) {
          requests.push(request)
          if (requests.length === 1) {
            instructions = 'use imperial units' // the config changes while turn 1 runs
            yield [{ type: 'tool-call', id: 'c1', name: 'calculator', input: { expression: '2+2' } }, { type: 'finish', reason: 'tool-calls' }]
          } else yield [{ type: 'text-delta', text: 'done' }, { type: 'finish', reason: 'stop' }]
        },
        { tools, sources: () => ({ 'config.instructions': instructions }) },
      )
      await session.runner.wake()
      expect(requests).toHaveLength(2)
      // The baseline is immutable: both turns carry the system text rendered when the epoch began.
      expect(requests[0]!.system).toBe('Context:\n- config.instructions: use metric units')
      expect(requests[1]!.system).toBe(requests[0]!.system)
      expect(JSON.stringify(requests[0]!.messages)).not.toContain('imperial')
      // The change arrives after the tool result, as a mid-conversation message.
      expect(requests[1]!.messages.at(-2)).toMatchObject({ role: 'tool', toolCallId: 'c1' })
      expect(requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: `${CONTEXT_UPDATE_PREFIX}- config.instructions: use imperial units` })
      const log = ledger.byTopic('session.boundary', { limit: 100 }).items as Stored[]
      const names = typesOf(log)
      expect(names.slice(names.indexOf('step.ended'), names.indexOf('step.ended') + 3)).toEqual(['step.ended', 'context.changed', 'step.started'])
      // The epoch's baseline reads back from the ledger.
      const epoch = log.find((e) => e.type === 'session.next.epoch.started')!.payload as { baseline: string; reason: string }
      expect(epoch.reason).toBe('start')
      expect(readBaseline(ledger, epoch.baseline)).toEqual({ system: requests[0]!.system, sources: { 'config.instructions': 'use metric units' }, messages: [] })
    }))

  it('every past request, across compactions and source changes, is rebuilt byte for byte from the ledger', () =>
    withLedger(uniqueName('rebuild'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register('calculator', calculator)
      const sent: LlmRequest[] = []
      let turn = 0
      const session = scriptedSession(
        ledger,
        'session.rebuild',
        async function* (request): AsyncIterable<LlmEvent[]> {
          if (isCompaction(request)) return yield [{ type: 'text-delta', text: 'summary so far' }, { type: 'finish', reason: 'stop' }]
          sent.push(structuredClone(request))
          turn++
          yield turn % 3 === 1
            ? [{ type: 'tool-call', id: `c${turn}`, name: 'calculator', input: { expression: `${turn}*2` } }, { type: 'finish', reason: 'tool-calls' }]
            : [{ type: 'text-delta', text: `answer ${turn} `.repeat(40) }, { type: 'finish', reason: 'stop' }]
        },
        { tools, limits: { context: 1500, output: 200 }, sources: () => ({ 'env.turn': Math.floor(turn / 4) }) },
      )
      for (let i = 0; i < 10; i++) session.host.record('session.next.admitted', { messageId: `m${i}`, delivery: 'queue', text: `question ${i}`, digest: 'd' })
      await session.runner.wake()
      const log = ledger.byTopic('session.rebuild', { limit: 1000 }).items as Stored[]
      expect(typesOf(log)).toContain('compaction.ended')
      expect(typesOf(log)).toContain('context.changed')
      const steps = log.filter((e) => e.type === 'session.next.step.started').map((e) => (e.payload as { step: string }).step)
      expect(steps).toHaveLength(sent.length)
      const model = composeCatalog({}).get('local', 'echo-1')!.model
      const wire = (request: LlmRequest) => openaiCompatible.request({ request, model, baseUrl: 'http://x/v1', apiKey: 'k', headers: {} }).text()
      for (const [i, step] of steps.entries()) {
        const rebuilt = rebuildRequest(ledger, 'session.rebuild', step)
        expect(rebuilt).toEqual(sent[i])
        expect(await wire(rebuilt)).toBe(await wire(sent[i]!))
      }
    }))

  it('an unavailable source never blocks a turn; its last good value is served while it reloads', async () => {
    let calls = 0
    let release: (value: string) => void = () => {}
    const sources = new ContextSources().register('memory.pinned', () => {
      calls++
      return new Promise<string>((resolve) => (release = resolve))
    })
    const input = { sessionId: 's', provider: 'local', model: 'echo-1', now: 0 }
    expect(sources.snapshot(input)).toEqual({ 'memory.pinned': UNAVAILABLE })
    release('pinned fact')
    await new Promise((r) => setTimeout(r, 0))
    expect(sources.snapshot(input)).toEqual({ 'memory.pinned': 'pinned fact' })
    expect(sources.snapshot(input)).toEqual({ 'memory.pinned': 'pinned fact' }) // stale while the reload runs
    expect(calls).toBe(2)
    expect(() => new ContextSources().register('pinned', () => 1)).toThrow(/namespaced/)
  })

  it('a real session records its epoch before its first turn, and the tool specs each step offered', async () => {
    const { id } = await newSession('epoch', undefined, { system: 'Be brief.' })
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'hello' })
    await waitIdle(id)
    const log = await events(id)
    expect(typesOf(log)).toEqual(['created', 'admitted', 'drain.started', 'epoch.started', 'prompted', 'step.started', 'text', 'step.ended', 'drain.ended'])
    expect(log.find((e) => e.type === 'session.next.step.started')!.payload).toMatchObject({ tools: expect.stringMatching(/^sha256:/) })
  })
})
