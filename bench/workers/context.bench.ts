/**
 * Sessions that last: tokens sent per turn over a 500-turn session on the 4k-window
 * `local/echo-small` (flat after the first compaction), and the per-turn cost of the budget
 * check plus context assembly against serialising the provider request alone.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import type { LlmRequest } from '../../objects/llm/types.ts'
import { budgetOf, TokenEstimator } from '../../objects/session/turn/budget.ts'
import { History } from '../../objects/session/turn/history.ts'
import { emptySession, reduceSession } from '../../objects/session/events/projection.ts'
import { events, newSession, postJson, waitIdle } from '../../test/support/session.ts'

const TURNS = 500

describe('context budget', () => {
  it(`tokens sent per turn over a ${TURNS}-turn session on local/echo-small`, async () => {
    const { id } = await newSession('bench-long', undefined, { model: 'local/echo-small' })
    const began = performance.now()
    for (let turn = 1; turn <= TURNS; turn++) {
      await postJson(`/v1/sessions/${id}/prompt`, { text: `turn ${turn}: the quick brown fox jumps over the lazy dog while the ledger folds every event` })
    }
    await waitIdle(id, 300_000)
    const elapsed = performance.now() - began
    const log = await events(id)
    const sent = log.filter((e) => e.type === 'session.next.step.ended').map((e) => (e.payload as { usage: { inputTokens: number } }).usage.inputTokens)
    const compactions = log.filter((e) => e.type === 'session.next.compaction.ended')
    const firstCompaction = log.filter((e) => e.type === 'session.next.step.ended' || e.type === 'session.next.compaction.ended').findIndex((e) => e.type === 'session.next.compaction.ended')
    const budget = budgetOf({ context: 4096, output: 1024 })
    console.log(`\ntokens sent per turn, ${TURNS} turns on local/echo-small (window ${budget.window}, input budget ${budget.input}); ${compactions.length} compactions, first before turn ${firstCompaction + 1}; ${(elapsed / 1000).toFixed(1)} s`)
    console.log('  turns        min    max   mean')
    for (let from = 0; from < TURNS; from += 50) {
      const slice = sent.slice(from, from + 50)
      const mean = slice.reduce((a, b) => a + b, 0) / slice.length
      console.log(`  ${String(from + 1).padStart(3)}–${String(from + 50).padEnd(3)}  ${String(Math.min(...slice)).padStart(6)} ${String(Math.max(...slice)).padStart(6)} ${mean.toFixed(0).padStart(6)}`)
    }
  })

  it('budget check + context assembly per turn vs serialising the provider request alone', async () => {
    const model = composeCatalog({}).get('local', 'echo-1')!
    const ROUNDS = 400
    const result = await runInDurableObject(env.LEDGER.getByName('bench-context'), async (_o, state) => {
      const ledger = new Ledger(state.storage)
      const sessions = ['session.bench-a'].map((topic) => ({ topic, state: emptySession() }))
      let history: History | null = null
      const record = (s: (typeof sessions)[number], type: string, payload: unknown) => {
        const { envelope } = ledger.append({ topic: s.topic, type, author: 'bench', parent: s.state.lastId, payload })
        s.state = reduceSession(s.state, envelope as Stored)
        return envelope as Stored
      }
      const turn = (s: (typeof sessions)[number], n: number): Stored[] => [
        record(s, 'session.next.admitted', { messageId: `m${n}`, delivery: 'queue', text: `turn ${n}: ${'a question about the ledger '.repeat(8)}`, digest: 'd' }),
        record(s, 'session.next.prompted', { messageIds: [`m${n}`] }),
        record(s, 'session.next.step.started', { step: `s${n}`, turn: 1, provider: 'local', model: 'echo-1' }),
        record(s, 'session.next.text', { step: `s${n}`, text: `answer ${n}: ${'the fold appends every event '.repeat(12)}` }),
        record(s, 'session.next.step.ended', { step: `s${n}`, finish: 'stop', usage: null, cost: null }),
      ]
      const [a] = sessions as [(typeof sessions)[number]]
      for (const s of sessions) {
        record(s, 'session.next.created', { model: 'echo-1', provider: 'local', title: null, system: null, owner: 'o', share: [] })
        for (let n = 0; n < 200; n++) turn(s, n)
      }
      history = new History(ledger, a.topic)
      const sent: LlmRequest[] = []
      const tokens = new TokenEstimator()
      const budget = budgetOf(model.model.limits)
      history.messages(a.state)
      const serialise = (request: LlmRequest) => openaiCompatible.request({ request, model: model.model, baseUrl: 'http://x/v1', apiKey: undefined, headers: {} }).text()

      // workerd's clock moves only across I/O, so each block ends with one timer tick; an empty
      // block (the tick alone) prices that out. Blocks interleave, so load from other processes
      // falls on all of them alike. The turn's events are written before the block (the runner
      // writes them anyway); applying them to the history is part of the assembly.
      const tick = () => new Promise((resolve) => setTimeout(resolve, 0))
      let assembled = 0
      let alone = 0
      let ticks = 0
      for (let from = 200; from < 200 + ROUNDS; from += 100) {
        const written: Stored[][] = []
        for (let n = from; n < from + 100; n++) written.push(turn(a, n))
        let start = performance.now()
        for (const envelopes of written) {
          for (const envelope of envelopes) history!.apply(envelope)
          // The projection as it stood after this turn's events (the block wrote 20 turns ahead).
          const messages = history!.messages({ ...a.state, lastSeq: envelopes.at(-1)!.seq })
          if (tokens.estimate(history!.chars()) > budget.input) throw new Error('unexpectedly over budget')
          sent.push({ provider: 'local', model: 'echo-1', messages })
        }
        await tick()
        assembled += performance.now() - start
        start = performance.now()
        for (const request of sent.slice(-100)) await serialise(request)
        await tick()
        alone += performance.now() - start
        start = performance.now()
        await tick()
        ticks += performance.now() - start
      }
      assembled -= ticks
      alone -= ticks
      return { assembled, alone, messages: sent.at(-1)!.messages.length, chars: history.chars() }
    })
    console.log(`\nper-turn context assembly, ${ROUNDS} turns, epoch growing to ${result.messages} messages (${(result.chars / 1024).toFixed(0)} KiB)`)
    console.log(`  serialise the provider request alone            ${(result.alone / ROUNDS).toFixed(2)} ms/turn   (physical limit)`)
    const extra = result.assembled
    console.log(`  history fold + budget check, on top             ${(extra / ROUNDS).toFixed(3)} ms/turn`)
    console.log(`  assembly + check + serialise vs serialise alone ${((result.alone + extra) / result.alone).toFixed(2)}×   (target ≤ 1.1×)`)
  })
})
