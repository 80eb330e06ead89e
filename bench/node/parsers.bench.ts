/**
 * Our stream path against the official SDKs' stream parsers on the same bytes:
 * `streamModel` (SSE + dialect + normalized events, async iteration)
 * vs `Stream.fromSSEResponse` of `openai` and `@anthropic-ai/sdk` (SSE + one
 * `JSON.parse` per event, raw chunks out), both reading the same 16 KiB chunks
 * from an in-memory response body. Node, not workerd: the SDKs are Node
 * packages; the ratio is what matters (ours ÷ SDK, > 1 is ahead). Each line also
 * gives the dialect parser against the line-split limit in the same run (as
 * bench/workers/llm-sse.bench.ts does inside workerd).
 *
 *   npx vitest run --config bench/vitest.config.ts --project bench-node bench/node/parsers.bench.ts
 */
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/core/streaming'
import { Stream as OpenAIStream } from 'openai/core/streaming'
import { it } from 'vitest'
import { compare } from '../support/compare.ts'
import { chunks, DIALECTS, decodeAndSplit, parse, streamCases, streamingBody, viaStreamModel } from '../support/llm-streams.ts'

async function viaSdk(kind: string, parts: Uint8Array[]): Promise<number> {
  const Stream = kind === 'anthropic/messages' ? AnthropicStream : OpenAIStream
  let count = 0
  for await (const _ of Stream.fromSSEResponse(new Response(streamingBody(parts)), new AbortController())) count++
  return count
}

it('our stream path vs the official SDK parsers on the same bytes', async () => {
  const lines: string[] = []
  for (const { name, kind, bytes } of streamCases()) {
    const parts = chunks(bytes)
    const sdkItems = await viaSdk(kind, parts)
    if (sdkItems === 0) throw new Error(`${name}: the SDK read no events`)
    // The SDK is the reference here: ours is the candidate, so its ratio is ours ÷ SDK.
    const { limit: sdk, candidates } = await compare(bytes.length, () => viaSdk(kind, parts), [() => viaStreamModel(kind, parts)])
    const ours = candidates[0]!
    const { limit, candidates: [parser] } = await compare(bytes.length, () => decodeAndSplit(parts), [() => parse(DIALECTS[kind], parts)])
    lines.push(
      `${name.padEnd(29)} ${(bytes.length / 1e6).toFixed(1)} MB | SDK ${sdk.toFixed(0).padStart(4)} MB/s (${String(sdkItems).padStart(6)} items) | ` +
        `streamModel ${ours.rate.toFixed(0).padStart(4)} MB/s = ${ours.ratio.toFixed(2)}x the SDK | ` +
        `limit ${limit.toFixed(0).padStart(4)} MB/s, dialect parser ${parser!.ratio.toFixed(2)}x`,
    )
  }
  console.log(`parsers vs SDKs (openai, @anthropic-ai/sdk), node ${process.version}, median of 9 interleaved samples\n${lines.join('\n')}`)
})
