/**
 * The fast lane (`DialectParser.whole`, objects/llm/dialects/lane.ts) is an optimisation, never a
 * second meaning: a stream read through `WireReader` gives the same normalized events (argument
 * deltas compared joined) and the same error as the SSE parser's events pushed one by one, and as
 * the same stream with every JSON line spaced out so only `JSON.parse` reads it. Checked over
 * seeded streams of argument deltas for each dialect, with escapes (valid, cut, bad, `\u`),
 * OpenAI's varying sequence numbers and obfuscation tails, CRLF events, unnamed events, `id`
 * lines, comments and other calls in between, cut into random chunks; and a run of several MB in
 * one chunk (one regex reads an OpenAI Responses run whole) against the same in network chunks.
 */
import { describe, expect, it } from 'vitest'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import type { Dialect, LlmEvent } from '../../objects/llm/types.ts'
import { joinedDeltas, runDialect, sseEvents, utf8 } from './support.ts'

/** A small seeded generator, so a failure names the case that made it. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** The reading without the lane: every SSE event pushed to the dialect one by one. */
function eventByEvent(dialect: Dialect, chunks: Uint8Array[]): { events: LlmEvent[]; error: unknown } {
  const parser = dialect.parser()
  const events: LlmEvent[] = []
  try {
    for (const event of sseEvents(chunks).events) parser.push(event, events)
    parser.end(events)
    return { events, error: undefined }
  } catch (error) {
    return { events, error }
  }
}

/** An error's machine-readable code (`undefined` for none). */
const code = (error: unknown) => (error === undefined ? undefined : ((error as { code?: string }).code ?? String(error)))

/** The same stream with every JSON `data:` line spaced out, which no hot shape accepts. */
function spaced(text: string): string {
  return text.replace(/^data: (\{.*?)(\r?)$/gm, (line, json: string, cr: string) => {
    try {
      return `data: ${JSON.stringify(JSON.parse(json), null, 1).replace(/\n/g, '')}${cr}`
    } catch {
      return line
    }
  })
}

type Stream = { head: string; delta: (body: string, next: () => number) => string; other: string; tail: string }

const STREAMS: Record<string, { dialect: Dialect; stream: Stream }> = {
  anthropic: {
    dialect: anthropic,
    stream: {
      head:
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"f","input":{}}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"g","input":{}}}\n\n',
      delta: (body, next) =>
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":${next() < 0.9 ? 0 : 1},"delta":{"type":"input_json_delta","partial_json":"${body}"}}\n\n`,
      other: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"hi"}}\n\n',
      tail:
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n' +
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    },
  },
  openai: {
    dialect: openai,
    stream: {
      head:
        'event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_a","call_id":"call_a","name":"f","arguments":""}}\n\n' +
        'event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"type":"function_call","id":"fc_b","call_id":"call_b","name":"g","arguments":""}}\n\n',
      delta: (body, next) => {
        const seq = next() < 0.8 ? String(Math.floor(next() * 1e5)) : ['0', '01', '-1', '1.5', ''][Math.floor(next() * 5)]
        const tails = ['"}', '","obfuscation":"aB3x"}', '","obfuscation":"Zz09+/=_-"}', '","obfuscation":""}', '","obfuscation":"a b"}', '" }', '","obfuscation":"x","usage":1}']
        const tail = next() < 0.8 ? tails[Math.floor(next() * 4)] : tails[Math.floor(next() * tails.length)]
        const item = next() < 0.9 ? 'fc_a' : 'fc_b'
        return `event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta","sequence_number":${seq},"item_id":"${item}","output_index":0,"delta":"${body}${tail}\n\n`
      },
      other: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":9,"item_id":"msg","output_index":2,"content_index":0,"delta":"hi"}\n\n',
      tail:
        'event: response.output_item.done\ndata: {"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_a","call_id":"call_a","name":"f","arguments":"{}"}}\n\n' +
        'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":9}}}\n\n',
    },
  },
  'openai-compatible': {
    dialect: openaiCompatible,
    stream: {
      head:
        'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}]}\n\n' +
        'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"g","arguments":""}}]},"logprobs":null,"finish_reason":null}]}\n\n',
      delta: (body, next) =>
        `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":${next() < 0.85 ? 0 : next() < 0.5 ? 1 : 2},"function":{"arguments":"${body}"}}]},"logprobs":null,"finish_reason":null}]}\n\n`,
      other: 'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}]}\n\n',
      tail:
        'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}\n\n' +
        'data: [DONE]\n\n',
    },
  },
}

// Mostly valid string pieces; some that no JSON string may hold (bad and cut escapes, bare quotes, controls).
const VALID = ['a', 'Z', ' ', '{', '}', ':', ',', '\\"', '\\\\', '\\n', '\\t', '\\/', '\\b', 'é', '日本', '🌍', '\\u00e9', '\\ud83c\\udf0d']
const INVALID = ['"', '\\', '\\x', '\\u12', '\\u00G0', '\u0001', '\\\u0001']

/** One seeded stream: the head, 1–60 events (mostly argument deltas, some changed), the tail. */
function seededStream(stream: Stream, next: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!
  let text = stream.head
  const count = 1 + Math.floor(next() * 60)
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: Math.floor(next() * 5) }, () => (next() < 0.97 ? pick(VALID) : pick(INVALID))).join('')
    let event = stream.delta(body, next)
    const change = next()
    if (change < 0.03) event = event.replaceAll('\n', '\r\n')
    else if (change < 0.05) event = event.replace(/^event: [^\n]*\n/, '')
    else if (change < 0.07) event = `id: ${i}\n${event}`
    else if (change < 0.09) event = `: keep-alive\n\n${event}`
    else if (change < 0.11) event = event.replace('data: ', 'data:')
    else if (change < 0.13) event = stream.other
    else if (change < 0.14) event = `data: {"x":1}\n${event}` // two data lines: one event, not JSON
    text += event
  }
  return text + stream.tail
}

/** `bytes` cut at random places, 1–300 bytes apart. */
function randomChunks(bytes: Uint8Array, next: () => number): Uint8Array[] {
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(next() * 300)
    chunks.push(bytes.subarray(at, at + size))
    at += size
  }
  return chunks
}

describe('WireReader: the fast lane reads what the SSE parser and JSON.parse read', () => {
  it.each(Object.entries(STREAMS))('%s: 400 seeded streams, whole and in random chunks', (_, { dialect, stream }) => {
    const next = random(4)
    let joined = 0
    for (let i = 0; i < 400; i++) {
      const text = seededStream(stream, next)
      const reference = eventByEvent(dialect, [utf8(text)])
      const onlyJson = runDialect(dialect, [utf8(spaced(text))])
      expect(joinedDeltas(onlyJson.events), text).toEqual(joinedDeltas(reference.events))
      // Codes only: a failing event's message quotes its data, which spacing changed.
      expect(code(onlyJson.error), text).toBe(code(reference.error))
      for (const chunks of [[utf8(text)], randomChunks(utf8(text), next)]) {
        const fast = runDialect(dialect, chunks)
        expect(joinedDeltas(fast.events), text).toEqual(joinedDeltas(reference.events))
        expect(String(fast.error), text).toBe(String(reference.error))
        if (fast.events.length < reference.events.length) joined++
      }
    }
    // The lane did take runs of deltas (fewer, joined events), not just fall back every time.
    expect(joined).toBeGreaterThan(100)
  })

  it.each(Object.entries(STREAMS))('%s: a field pending from the chunk before is never skipped by the lane, at any split', (_, { dialect, stream }) => {
    const body = () => stream.delta('{\\"a\\":1}', () => 0)
    for (const pending of ['data: {"x":1}\n', 'event: other\n', 'id: 7\n', ': note\n']) {
      const bytes = utf8(stream.head + body() + body() + pending + body() + body() + stream.tail)
      const reference = eventByEvent(dialect, [bytes])
      for (let at = 1; at < bytes.length; at++) {
        const fast = runDialect(dialect, [bytes.subarray(0, at), bytes.subarray(at)])
        expect(joinedDeltas(fast.events), `${pending} split at ${at}`).toEqual(joinedDeltas(reference.events))
        expect(String(fast.error)).toBe(String(reference.error))
      }
    }
  })

  it.each(Object.entries(STREAMS))('%s: an event cut across many chunks, under and over the re-read limit, reads the same', (_, { dialect, stream }) => {
    const body = stream.delta('{\\"a\\":1}', () => 0)
    for (const lines of [10, 3000]) {
      // Comment lines inside the event: 160 B and 48 KB of it before its fields.
      const bytes = utf8(stream.head + body + `: ${'x'.repeat(13)}\n`.repeat(lines) + body + body + stream.tail)
      const reference = eventByEvent(dialect, [bytes])
      const fast = runDialect(dialect, randomChunks(bytes, random(lines)))
      expect(joinedDeltas(fast.events)).toEqual(joinedDeltas(reference.events))
      expect(String(fast.error)).toBe(String(reference.error))
    }
  })

  it.each(Object.entries(STREAMS))('%s: a run of several MB in one chunk reads as one delta, the same as in network chunks', (_, { dialect, stream }) => {
    // One regex over the whole run (OpenAI Responses) must not run out of backtracking room on a long one.
    const body = '{\\"path\\":\\"a.txt\\",\\"text\\":\\"line\\\\n\\"}'
    const event = stream.delta(body, () => 0)
    const bytes = utf8(stream.head + event.repeat(Math.ceil(4e6 / event.length)) + stream.tail)
    const whole = runDialect(dialect, [bytes])
    const chunks: Uint8Array[] = []
    for (let at = 0; at < bytes.length; at += 16384) chunks.push(bytes.subarray(at, at + 16384))
    const chunked = runDialect(dialect, chunks)
    expect(whole.error).toBeUndefined()
    expect(whole.events.filter((e) => e.type === 'tool-input-delta').length).toBeLessThanOrEqual(2)
    expect(joinedDeltas(whole.events)).toEqual(joinedDeltas(chunked.events))
  })

  it('joins the argument deltas of one call that arrive in one chunk, and not across chunks', () => {
    const { head, tail } = STREAMS.anthropic!.stream
    const delta = (body: string) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"${body}"}}\n\n`
    const deltas = ['{\\"a\\":', ' \\"x', '\\u00e9', 'y\\"', '}'].map(delta)
    const deltaEvents = (chunks: string[]) => runDialect(anthropic, chunks.map(utf8)).events.filter((e) => e.type === 'tool-input-delta')
    // The first delta teaches the frame; the next run joins up to the `\u` escape, which is read alone.
    expect(deltaEvents([head + deltas.join('') + tail])).toEqual(
      ['{"a":', ' "x', 'é', 'y"}'].map((text) => ({ type: 'tool-input-delta', id: 'toolu_a', delta: text })),
    )
    expect(deltaEvents([head, ...deltas, tail]).map((e) => (e.type === 'tool-input-delta' ? e.delta : ''))).toEqual(['{"a":', ' "x', 'é', 'y"', '}'])
  })
})
