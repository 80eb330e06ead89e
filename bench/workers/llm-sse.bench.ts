/**
 * SSE parse throughput of each wire dialect against the physical limit measured
 * in the same run: a streaming `TextDecoder` plus splitting the same bytes into
 * lines (no field parsing, no JSON). Streams are several MB built by repeating
 * the delta events of a recorded stream between its real head and tail, and are
 * fed in 16 KiB chunks like network reads. Prints MB/s and the ratio (target ≥ 0.5×).
 *
 *   npx vitest run --config bench/vitest.config.ts --project bench-workers bench/workers/llm-sse.bench.ts
 */
import { it } from 'vitest'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { type SseEvent, SseParser } from '../../objects/llm/sse.ts'
import type { Dialect, LlmEvent } from '../../objects/llm/types.ts'
import { compare, type Measured } from '../support/compare.ts'
import { CHUNK, chunks, streamCases, viaStreamModel } from '../support/llm-streams.ts'

/** The physical limit: decode and cut into lines, nothing else. */
function decodeAndSplit(parts: Uint8Array[]): number {
  const decoder = new TextDecoder()
  let carry = ''
  let lines = 0
  for (const part of parts) {
    const text = carry + decoder.decode(part, { stream: true })
    const split = text.split('\n')
    carry = split.pop() ?? ''
    lines += split.length
  }
  return lines + (carry + decoder.decode()).split('\n').length
}

/** The shared SSE parser alone: the floor under every dialect. */
function sseOnly(parts: Uint8Array[]): number {
  const sse = new SseParser()
  const wire: SseEvent[] = []
  let count = 0
  for (const part of parts) {
    sse.push(part, wire)
    count += wire.length
    wire.length = 0
  }
  sse.end(wire)
  return count + wire.length
}

/** The dialect path of `streamModel`, minus the network: SSE parser + dialect parser. */
function parse(dialect: Dialect, parts: Uint8Array[]): number {
  const sse = new SseParser()
  const parser = dialect.parser()
  const wire: SseEvent[] = []
  let count = 0
  for (const part of parts) {
    sse.push(part, wire)
    const out: LlmEvent[] = []
    for (const event of wire) parser.push(event, out)
    wire.length = 0
    count += out.length
  }
  sse.end(wire)
  const out: LlmEvent[] = []
  for (const event of wire) parser.push(event, out)
  parser.end(out)
  return count + out.length
}

const DIALECTS = { 'anthropic/messages': anthropic, 'openai/responses': openai, 'openai/completions': openaiCompatible }
const CASES = streamCases().map((c) => ({ ...c, dialect: DIALECTS[c.kind] }))

it('SSE parse throughput per dialect vs TextDecoder + line split', async () => {
  const lines: string[] = []
  for (const { name, dialect, bytes } of CASES) {
    const parts = chunks(bytes)
    const events = parse(dialect, parts)
    const { limit, candidates } = await compare(bytes.length, () => decodeAndSplit(parts), [
      () => sseOnly(parts),
      () => parse(dialect, parts),
      () => viaStreamModel(dialect.kind, parts),
    ])
    const cell = (label: string, { rate, ratio }: { rate: number; ratio: number }) =>
      `${label} ${rate.toFixed(0).padStart(4)} MB/s = ${ratio.toFixed(2)}x`
    const [sse, parser, full] = candidates as [Measured, Measured, Measured]
    lines.push(
      `${name.padEnd(29)} ${(bytes.length / 1e6).toFixed(1)} MB ${String(events).padStart(6)} events | ` +
        `limit ${limit.toFixed(0).padStart(5)} MB/s | ${cell('dialect parser', parser)} | ` +
        `${cell('SSE alone', sse)} | ${cell('streamModel', full)}`,
    )
  }
  console.log(`llm-sse: ${CHUNK / 1024} KiB chunks, median of 9 interleaved samples\n${lines.join('\n')}`)
})
