/**
 * Runner overhead: a turn streaming 10,000 tokens from the local model,
 * end to end through the session (admission, drain, dialect, deltas, durable
 * events), against parsing the same bytes alone in the same run.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, it } from 'vitest'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { streamModel } from '../../objects/llm/stream.ts'
import { type ScriptedSession, scriptedSession } from '../../test/support/runner-host.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { parseWire, PROMPT, runnerWire, TOKENS } from '../support/runner-wire.ts'

const ROUNDS = 7
/** Each sample repeats its work this many times: the workerd clock ticks in whole milliseconds (5 left ±20% per sample). */
const REPEAT = 20

type StreamOf = Parameters<typeof scriptedSession>[2]

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1]!
}

/** The median over rounds of each round's figure divided by the same round's limit: load that drifts between rounds cancels. */
function ratio(xs: number[], limits: number[]): number {
  return median(xs.map((x, i) => x / limits[i]!))
}

/**
 * The mean of `REPEAT` timed runner turns in one object, each in a fresh scripted session over
 * `stream`; `before` runs untimed first (a session's first turn, for a second-turn figure).
 */
function meanTurn(object: string, topic: string, stream: StreamOf, before?: (session: ScriptedSession) => Promise<void>): Promise<number> {
  return runInDurableObject(env.SESSIONS.getByName(object), async (_o, state) => {
    let total = 0
    for (let r = 0; r < REPEAT; r++) {
      const session = scriptedSession(new Ledger(state.storage), `${topic}-${r}`, stream, { prompt: PROMPT })
      await before?.(session)
      const began = performance.now()
      await session.runner.wake()
      total += performance.now() - began
    }
    return total / REPEAT
  })
}

describe('runner overhead', () => {
  it(`a ${TOKENS.toLocaleString()}-token turn vs parsing the same bytes alone`, async () => {
    // The local model's bytes, a vendor replaying them, and the same events parsed once up front (one batch per chunk).
    const wire = await runnerWire()
    const parseOnly: number[] = []
    const streamOnly: number[] = []
    const replayTurn: number[] = []
    const replayWarm: number[] = []
    const replayStream: number[] = []
    const preparsed: number[] = []
    const turn: number[] = []
    // The limit: SSE + dialect over the same chunks, in memory, per repetition, joined as streamModel joins them.
    const parse = () => {
      const start = performance.now()
      for (let r = 0; r < REPEAT; r++) parseWire(wire.chunks)
      return (performance.now() - start) / REPEAT
    }
    for (let round = 0; round < ROUNDS; round++) {
      const parsedBefore = parse()
      let start = performance.now()
      const catalog = composeCatalog({})
      for (let r = 0; r < REPEAT; r++) {
        let deltas = 0
        for await (const event of streamModel({ provider: 'local', model: 'echo-1', messages: [{ role: 'user', content: PROMPT }] }, { catalog })) {
          if (event.type === 'text-delta') deltas++
        }
        if (deltas !== TOKENS) throw new Error(`expected ${TOKENS} deltas, got ${deltas}`)
      }
      streamOnly.push((performance.now() - start) / REPEAT)

      start = performance.now()
      for (let r = 0; r < REPEAT; r++) {
        for await (const batch of wire.stream({ provider: 'deepseek', model: 'deepseek-chat', messages: [{ role: 'user', content: PROMPT }] })) void batch
      }
      replayStream.push((performance.now() - start) / REPEAT)

      // The runner alone over the replayed bytes: durable events into a real ledger, deltas, history.
      replayTurn.push(await meanTurn(`bench-replay-${round}`, 'session.replay', wire.stream))
      // The runner over the pre-parsed batches: what it adds to a turn, apart from the stream.
      preparsed.push(await meanTurn(`bench-preparsed-${round}`, 'session.preparsed', wire.preparsed))
      // The same, for a session's second turn: its first turn already stored the context baseline
      // and the offered tools, which every later turn reuses (its history also holds the first answer).
      replayWarm.push(
        await meanTurn(`bench-replay-warm-${round}`, 'session.warm', wire.stream, async (session) => {
          await session.runner.wake()
          session.host.record('session.next.admitted', { messageId: 'm2', delivery: 'queue', text: PROMPT, digest: 'd2' })
        }),
      )

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
      // Measured at both ends of the round, so the round's limit saw the same load as its subjects.
      parseOnly.push((parsedBefore + parse()) / 2)
    }
    const p = median(parseOnly)
    const s = median(streamOnly)
    const t = median(turn)
    const r = median(replayTurn)
    const rs = median(replayStream)
    const w = median(replayWarm)
    const of = (xs: number[]) => ratio(xs, parseOnly).toFixed(2)
    console.log(`\nrunner overhead, ${TOKENS.toLocaleString()} tokens, ${(wire.bytes.length / 1024).toFixed(0)} KiB of chat-completions SSE, ${REPEAT} repetitions per sample, median of ${ROUNDS} rounds (ratios: median of each round's own ratio)`)
    console.log(`  parse the bytes alone (SSE + dialect)          ${p.toFixed(1)} ms   (physical limit)`)
    console.log(`  streamModel alone (local model + parse)        ${s.toFixed(1)} ms   ${of(streamOnly)}×`)
    console.log(`  streamModel over the replayed bytes            ${rs.toFixed(1)} ms   ${of(replayStream)}× parse`)
    // Against the transport too: reading a fetched body is part of every real turn, and not of the parse.
    const overStream = (xs: number[]) => `${ratio(xs, replayStream).toFixed(2)}× streamModel over the same bytes`
    console.log(`  runner turn over the replayed bytes            ${r.toFixed(1)} ms   ${of(replayTurn)}× parse   (target ≤ 1.2×), ${overStream(replayTurn)}`)
    console.log(`  the same, a session's second turn              ${w.toFixed(1)} ms   ${of(replayWarm)}× parse   (target ≤ 1.2×), ${overStream(replayWarm)}`)
    console.log(`  the runner over the same events, pre-parsed    ${median(preparsed).toFixed(1)} ms   ${of(preparsed)}× parse   (what the runner adds)`)
    console.log(`  full session turn, local model generating      ${t.toFixed(1)} ms   ${of(turn)}× parse, ${ratio(turn, streamOnly).toFixed(2)}× streamModel`)
  })
})
