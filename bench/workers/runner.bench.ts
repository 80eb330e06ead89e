/**
 * Runner overhead (issue 3): a turn streaming 10,000 tokens from the local model,
 * end to end through the session (admission, drain, dialect, deltas, durable
 * events), against parsing the same bytes alone in the same run.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, it } from 'vitest'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { localFetch } from '../../objects/llm/local/fetch.ts'
import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import { streamModel } from '../../objects/llm/stream.ts'
import type { LlmEvent } from '../../objects/llm/types.ts'
import type { SessionObject } from '../../objects/session/session-object.ts'

const TOKENS = 10_000
const ROUNDS = 5
/** Each sample repeats its work this many times: the workerd clock ticks in whole milliseconds. */
const REPEAT = 5
const PROMPT = `/tokens ${TOKENS}`

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1]!
}

describe('runner overhead', () => {
  it(`a ${TOKENS.toLocaleString()}-token turn vs parsing the same bytes alone`, async () => {
    const body = JSON.stringify({ model: 'echo-1', stream: true, messages: [{ role: 'user', content: PROMPT }] })
    const response = await localFetch('http://local.neuron/v1/chat/completions', { method: 'POST', body })
    const bytes = new Uint8Array(await response.arrayBuffer())
    const chunks: Uint8Array[] = []
    for (let at = 0; at < bytes.length; at += 16 * 1024) chunks.push(bytes.subarray(at, at + 16 * 1024))

    const parseOnly: number[] = []
    const streamOnly: number[] = []
    const turn: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      let start = performance.now()
      for (let r = 0; r < REPEAT; r++) {
        const sse = new SseParser()
        const dialect = openaiCompatible.parser()
        const wire: SseEvent[] = []
        const out: LlmEvent[] = []
        for (const chunk of chunks) {
          sse.push(chunk, wire)
          for (const event of wire) dialect.push(event, out)
          wire.length = 0
        }
        dialect.end(out)
      }
      parseOnly.push((performance.now() - start) / REPEAT)

      start = performance.now()
      const catalog = composeCatalog({})
      for (let r = 0; r < REPEAT; r++) {
        let deltas = 0
        for await (const event of streamModel({ provider: 'local', model: 'echo-1', messages: [{ role: 'user', content: PROMPT }] }, { catalog })) {
          if (event.type === 'text-delta') deltas++
        }
        if (deltas !== TOKENS) throw new Error(`expected ${TOKENS} deltas, got ${deltas}`)
      }
      streamOnly.push((performance.now() - start) / REPEAT)

      // A fresh session per turn, so each request carries the same (one-message) history.
      let total = 0
      for (let r = 0; r < REPEAT; r++) {
        total += await runInDurableObject(env.SESSIONS.getByName(`bench-runner-${round}-${r}`), async (instance: SessionObject) => {
          instance.create({ id: 'bench#runner', claims: [] }, {})
          const began = performance.now()
          instance.prompt({ id: 'bench#runner', claims: [] }, { text: PROMPT })
          await (instance as unknown as { runner: { wake(): Promise<void> } }).runner.wake()
          return performance.now() - began
        })
      }
      turn.push(total / REPEAT)
    }
    const p = median(parseOnly)
    const s = median(streamOnly)
    const t = median(turn)
    console.log(`\nrunner overhead, ${TOKENS.toLocaleString()} tokens, ${(bytes.length / 1024).toFixed(0)} KiB of chat-completions SSE, median of ${ROUNDS}`)
    console.log(`  parse the bytes alone (SSE + dialect)          ${p.toFixed(1)} ms   (physical limit)`)
    console.log(`  streamModel alone (local model + parse)        ${s.toFixed(1)} ms   ${(s / p).toFixed(2)}×`)
    console.log(`  full session turn (admit → drain → durable)    ${t.toFixed(1)} ms   ${(t / p).toFixed(2)}× parse, ${(t / s).toFixed(2)}× streamModel   (target ≤ 1.2×)`)
  })
})
