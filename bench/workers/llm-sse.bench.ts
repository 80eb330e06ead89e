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
import { compare, type Measured } from '../support/compare.ts'
import { CHUNK, chunks, DIALECTS, decodeAndSplit, parse, sseOnly, streamCases, viaStreamModel } from '../support/llm-streams.ts'

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
