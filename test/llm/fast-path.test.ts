/**
 * The hot-path shortcut must agree with `JSON.parse` on every input it accepts,
 * and must engage on the vendors' real deltas (or the benchmark lies).
 */
import { describe, expect, it } from 'vitest'
import { JSON_DELTA, TEXT_DELTA } from '../../objects/llm/dialects/anthropic.ts'
import { type HotEvent, type HotShape, hotFrame, hotRead, hotShape, MEMBERS, STRING } from '../../objects/llm/dialects/fast-path.ts'
import { ARGUMENTS_DELTA, OUTPUT_TEXT_DELTA } from '../../objects/llm/dialects/openai.ts'
import { CONTENT_DELTA, TOOL_DELTA } from '../../objects/llm/dialects/openai-compatible.ts'
import { FIXTURES } from './fixtures.ts'

const SHAPE = hotShape(String.raw`\{"type":"t",${MEMBERS}"delta":${STRING}(?:,"n":(?:0|[1-9]\d*))?\}`)

/** What the full JSON path reads from the same event, or undefined if the shape is not that event. */
function slow(data: string): string | undefined {
  try {
    const value = JSON.parse(data) as { type?: unknown; delta?: unknown }
    return value.type === 't' && typeof value.delta === 'string' ? value.delta : undefined
  } catch {
    return undefined
  }
}

describe('hotRead', () => {
  it.each([
    ['{"type":"t","delta":"plain"}', 'plain'],
    ['{"type":"t","id":"x","n":3,"ok":true,"no":null,"f":-1.5e3,"delta":"with fields before","n":4}', 'with fields before'],
    ['{"type":"t","delta":"quote \\" and backslash \\\\ and \\n newline"}', 'quote " and backslash \\ and \n newline'],
    ['{"type":"t","delta":"ends with backslash \\\\"}', 'ends with backslash \\'],
    ['{"type":"t","delta":"\\u00e9\\ud83c\\udf0d"}', 'é🌍'],
    ['{"type":"t","delta":"raw é🌍 日本"}', 'raw é🌍 日本'],
    ['{"type":"t","delta":""}', ''],
  ])('reads %s', (data, expected) => {
    expect(hotRead(data, SHAPE)?.text).toBe(expected)
    expect(slow(data)).toBe(expected)
  })

  it.each([
    ['another type', '{"type":"u","delta":"x"}'],
    ['nested object before the key', '{"type":"t","o":{"delta":"inner"},"delta":"outer"}'],
    ['array before the key', '{"type":"t","a":["x"],"delta":"y"}'],
    ['duplicate type after (JSON.parse: last wins)', '{"type":"t","delta":"x","type":"error"}'],
    ['duplicate type before the key', '{"type":"t","type":"error","delta":"x"}'],
    ['duplicate delta', '{"type":"t","delta":1,"delta":"x"}'],
    ['unexpected tail field', '{"type":"t","delta":"x","usage":{"a":1}}'],
    ['raw control character', '{"type":"t","delta":"a\u0001b"}'],
    ['invalid escape', '{"type":"t","delta":"bad \\x escape"}'],
    ['escape in an earlier field', '{"type":"t","id":"a\\"b","delta":"x"}'],
    ['invalid number before the key', '{"type":"t","n":01,"delta":"x"}'],
    ['whitespace (not compact)', '{"type":"t", "delta":"x"}'],
    ['unterminated', '{"type":"t","delta":"x'],
    ['not a string', '{"type":"t","delta":null}'],
  ])('declines (%s), leaving the verdict to JSON.parse', (_, data) => {
    expect(hotRead(data, SHAPE)).toBeUndefined()
  })
})

/** Inserting or replacing one character anywhere, with characters that matter to JSON. */
function* mutations(base: string): Generator<string> {
  const alphabet = ['"', '\\', '{', '}', '[', ']', ',', ':', 'x', 'u', '0', '1', '-', '.', 'e', '\u0001', ' ', 'n']
  for (let at = 0; at <= base.length; at++) {
    for (const c of alphabet) {
      yield base.slice(0, at) + c + base.slice(at)
      yield base.slice(0, at) + c + base.slice(at + 1)
    }
  }
}

// What each dialect's full JSON path reads from an event that is nothing but one delta of this kind.
type Reader = (v: any) => HotEvent | undefined // eslint-disable-line @typescript-eslint/no-explicit-any
const str = (value: unknown) => typeof value === 'string'
const only = (object: unknown, keys: string) => !!object && typeof object === 'object' && Object.keys(object).join() === keys
const anthropicDelta = (kind: string, field: string): Reader => (v) =>
  only(v, 'type,index,delta') && v.type === 'content_block_delta' && Number.isInteger(v.index) && v.index >= 0 &&
  only(v.delta, `type,${field}`) && v.delta.type === kind && str(v.delta[field])
    ? { text: v.delta[field], index: v.index, id: '' }
    : undefined
const compatDelta = (field: string, read: (delta: any) => HotEvent | undefined): Reader => (v) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  const choice = Array.isArray(v?.choices) && v.choices.length === 1 ? v.choices[0] : undefined
  const plain = choice && !v.usage && !v.error && choice.index === 0 && choice.finish_reason === null && only(choice.delta, field)
  return plain ? read(choice.delta) : undefined
}
const READERS = new Map<HotShape, Reader>([
  [TEXT_DELTA, anthropicDelta('text_delta', 'text')],
  [JSON_DELTA, anthropicDelta('input_json_delta', 'partial_json')],
  [OUTPUT_TEXT_DELTA, (v) => (v.type === 'response.output_text.delta' && str(v.delta) ? { text: v.delta, index: -1, id: '' } : undefined)],
  [
    ARGUMENTS_DELTA,
    (v) =>
      v.type === 'response.function_call_arguments.delta' && str(v.delta) && str(v.item_id)
        ? { text: v.delta, index: -1, id: v.item_id }
        : undefined,
  ],
  [CONTENT_DELTA, compatDelta('content', (d) => (str(d.content) ? { text: d.content, index: -1, id: '' } : undefined))],
  [
    TOOL_DELTA,
    compatDelta('tool_calls', (d) => {
      const call = Array.isArray(d.tool_calls) && d.tool_calls.length === 1 ? d.tool_calls[0] : undefined
      return only(call, 'index,function') && Number.isInteger(call.index) && call.index >= 0 && only(call.function, 'arguments') && str(call.function.arguments)
        ? { text: call.function.arguments, index: call.index, id: '' }
        : undefined
    }),
  ],
])

describe('every real hot shape agrees with JSON.parse over every one-character mutation', () => {
  it.each([
    ['anthropic text', TEXT_DELTA, '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\"b é"}}'],
    ['anthropic json', JSON_DELTA, '{"type":"content_block_delta","index":12,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}'],
    ['openai text', OUTPUT_TEXT_DELTA, '{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"a\\"b é","logprobs":[],"obfuscation":"kqZ3"}'],
    ['openai arguments', ARGUMENTS_DELTA, '{"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_1","output_index":0,"delta":"{\\"a\\":","obfuscation":"aB3x"}'],
    ['compatible content', CONTENT_DELTA, '{"id":"c1","object":"chat.completion.chunk","created":17,"model":"m","system_fingerprint":null,"choices":[{"index":0,"delta":{"content":"a\\"b é"},"logprobs":null,"finish_reason":null}]}'],
    ['compatible tool', TOOL_DELTA, '{"id":"c1","object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\\"a\\":"}}]},"logprobs":null,"finish_reason":null}]}'],
  ] as const)('%s', (_, shape, base) => {
    const read = READERS.get(shape)!
    expect(hotRead(base, shape)).toEqual(read(JSON.parse(base)))
    let accepted = 0
    for (const data of mutations(base)) {
      const fast = hotRead(data, shape)
      if (fast === undefined) continue
      accepted++
      let full: HotEvent | undefined
      try {
        full = read(JSON.parse(data))
      } catch {}
      expect(fast, data).toEqual(full)
    }
    expect(accepted).toBeGreaterThan(20)
  })
})

describe('the dialects take the fast path on the recorded deltas', () => {
  const datas = (text: string, pattern: RegExp) =>
    text.split('\n').flatMap((line) => (line.startsWith('data: ') && pattern.test(line) ? [line.slice(6)] : []))
  it.each([
    ['anthropic text', TEXT_DELTA, FIXTURES.anthropic['text.sse'], /"text_delta"/],
    ['anthropic json', JSON_DELTA, FIXTURES.anthropic['tools-parallel.sse'], /"input_json_delta"/],
    ['openai text', OUTPUT_TEXT_DELTA, FIXTURES.openai['text.sse'], /response\.output_text\.delta/],
    ['openai arguments', ARGUMENTS_DELTA, FIXTURES.openai['tools-parallel.sse'], /function_call_arguments\.delta/],
    ['compatible content', CONTENT_DELTA, FIXTURES['openai-compatible']['text.sse'], /"delta":\{"content":"./],
    ['compatible tool', TOOL_DELTA, FIXTURES['openai-compatible']['tools-parallel.sse'], /"delta":\{"tool_calls":\[\{"index":\d,"function"/],
  ] as const)('%s', (_, shape, text, pattern) => {
    const hot = datas(text, pattern)
    expect(hot.length).toBeGreaterThanOrEqual(3)
    for (const data of hot) expect(hotRead(data, shape), data).toEqual(READERS.get(shape)!(JSON.parse(data)))
  })
})

describe('a frame shape reads through the remembered frame exactly as the full match would', () => {
  const FRAMED = hotShape(String.raw`\{"type":"t",${MEMBERS}"delta":${STRING}\}`, { frame: true })
  const at = (body: string) => `{"type":"t","id":"x","delta":"${body}"}`
  it('declines before any match, then reads only that frame around a valid string body', () => {
    expect(hotFrame(at('a'), FRAMED)).toBeUndefined()
    expect(hotRead(at('a'), FRAMED)?.text).toBe('a')
    for (const [body, expected] of [
      ['plain', 'plain'],
      ['', ''],
      ['q \\" b \\\\ n \\n', 'q " b \\ n \n'],
      ['\\u00e9\\ud83c\\udf0d raw é', 'é🌍 raw é'],
      ['ends in an escaped backslash \\\\', 'ends in an escaped backslash \\'],
    ]) {
      expect(hotFrame(at(body!), FRAMED)?.text).toBe(expected)
      expect(JSON.parse(at(body!)).delta).toBe(expected)
    }
    // Not a string body in that frame: the frame declines, and the verdict is the regex's and JSON.parse's.
    for (const body of ['bare " quote', 'cut escape \\', 'bad \\x escape', 'short \\u12', 'control \u0001', '","delta":"twice']) {
      expect(hotFrame(at(body), FRAMED)).toBeUndefined()
      expect(hotRead(at(body), FRAMED)).toBeUndefined()
    }
    // Another frame (a different id) goes through the regex, which then remembers it.
    const other = '{"type":"t","id":"y","delta":"z"}'
    expect(hotFrame(other, FRAMED)).toBeUndefined()
    expect(hotRead(other, FRAMED)?.text).toBe('z')
    expect(hotFrame('{"type":"t","id":"y","delta":"w"}', FRAMED)?.text).toBe('w')
  })
})
