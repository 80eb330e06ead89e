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
import { streamModel } from '../../objects/llm/stream.ts'
import { createCatalog, type Provider } from '../../objects/llm/catalog.ts'
import { CATALOG_SNAPSHOT } from '../../objects/llm/catalog-snapshot.ts'
import type { Dialect, LlmEvent } from '../../objects/llm/types.ts'
import anthropicText from '../../test/fixtures/llm/anthropic/text.sse?raw'
import anthropicTools from '../../test/fixtures/llm/anthropic/tools-parallel.sse?raw'
import compatText from '../../test/fixtures/llm/openai-compatible/text.sse?raw'
import compatTools from '../../test/fixtures/llm/openai-compatible/tools-parallel.sse?raw'
import openaiText from '../../test/fixtures/llm/openai/text.sse?raw'
import openaiTools from '../../test/fixtures/llm/openai/tools-parallel.sse?raw'

const TARGET_BYTES = 8 * 1024 * 1024
const CHUNK = 16 * 1024
const RUNS = 9

/** Head events, the delta events repeated to ~TARGET_BYTES, tail events: one valid stream. */
function large(recording: string, isDelta: (event: string) => boolean): Uint8Array {
  const events = recording.split(/(?<=\n\n)/)
  const first = events.findIndex(isDelta)
  const last = events.findLastIndex(isDelta)
  const body = events.slice(first, last + 1).join('')
  const head = events.slice(0, first).join('')
  const tail = events.slice(last + 1).join('')
  return new TextEncoder().encode(head + body.repeat(Math.ceil(TARGET_BYTES / body.length)) + tail)
}

function chunks(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += CHUNK) out.push(bytes.subarray(at, at + CHUNK))
  return out
}

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

/** The whole of `streamModel` over an in-memory streaming body (async iteration included). */
async function viaStreamModel(endpoint: string, parts: Uint8Array[]): Promise<number> {
  const row = CATALOG_SNAPSHOT.find((p) => p.endpoint === endpoint)!
  const provider: Provider = { ...row, enabled: true, apiKey: 'k', headers: {}, fetch: undefined }
  const catalog = createCatalog([provider], { provider: row.id, model: row.models[0]!.id })
  const body = () => {
    let next = 0
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts[next++]
        if (part) controller.enqueue(part)
        else controller.close()
      },
    })
  }
  let count = 0
  const request = { provider: row.id, model: row.models[0]!.id, messages: [] }
  for await (const _ of streamModel(request, { catalog, fetch: async () => new Response(body()) })) count++
  return count
}

/** How many runs of `run` take at least 100 ms (the clock is coarse). */
async function calibrate(run: () => unknown): Promise<number> {
  let repeat = 0
  for (const started = performance.now(); performance.now() - started < 100; repeat++) await run()
  return Math.max(1, repeat)
}

async function rate(bytes: number, repeat: number, run: () => unknown): Promise<number> {
  const started = performance.now()
  for (let r = 0; r < repeat; r++) await run()
  return (bytes * repeat) / 1e6 / ((performance.now() - started) / 1000)
}

type Measured = { rate: number; ratio: number }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * Samples the limit and each candidate back to back, RUNS times, so load from
 * other processes hits both alike; ratios are per sample, then the median.
 */
async function compare(bytes: number, limit: () => unknown, candidates: Array<() => unknown>) {
  const all = [limit, ...candidates]
  const repeats = await Promise.all(all.map(async (run) => calibrate(run)))
  const samples: number[][] = all.map(() => [])
  for (let i = 0; i < RUNS; i++) {
    for (const [k, run] of all.entries()) samples[k]!.push(await rate(bytes, repeats[k]!, run))
  }
  return {
    limit: median(samples[0]!),
    candidates: samples.slice(1).map((rates) => ({
      rate: median(rates),
      ratio: median(rates.map((r, i) => r / samples[0]![i]!)),
    })),
  }
}

// Text streams repeat the text deltas; tool streams repeat the argument deltas of one
// call, as a long tool input (a file write, say) streams.
const CASES = [
  { name: 'anthropic text', dialect: anthropic, bytes: large(anthropicText, (e) => e.includes('"text_delta"')) },
  {
    name: 'anthropic tool input',
    dialect: anthropic,
    bytes: large(anthropicTools, (e) => e.includes('"index":1,"delta":{"type":"input_json_delta"')),
  },
  { name: 'openai text', dialect: openai, bytes: large(openaiText, (e) => e.includes('response.output_text.delta')) },
  {
    name: 'openai tool input',
    dialect: openai,
    bytes: large(openaiTools, (e) => e.includes('arguments.delta') && e.includes('"output_index":0')),
  },
  { name: 'openai-compatible text', dialect: openaiCompatible, bytes: large(compatText, (e) => e.includes('"content":"')) },
  {
    name: 'openai-compatible tool input',
    dialect: openaiCompatible,
    bytes: large(compatTools, (e) => e.includes('{"tool_calls":[{"index":0,"function"')),
  },
]

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
  console.log(`llm-sse: ${CHUNK / 1024} KiB chunks, median of ${RUNS} interleaved samples\n${lines.join('\n')}`)
})
