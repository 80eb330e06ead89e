/**
 * The fast path is an optimisation, never a second meaning: every recorded stream gives the same
 * normalized events through the hot shapes and remembered frames as through `JSON.parse` alone,
 * and a frame whose integers and tail may change (OpenAI Responses) accepts only what the shape's
 * own regex accepts, with the same reading, over a seeded fuzz of escapes, unicode and framing.
 */
import { describe, expect, it } from 'vitest'
import { dialectFor } from '../../objects/llm/dialects/registry.ts'
import { type HotShape, hotFrame, hotRead } from '../../objects/llm/dialects/fast-path.ts'
import { Fragments } from '../../objects/llm/dialects/fragments.ts'
import { ARGUMENTS_DELTA, OUTPUT_TEXT_DELTA } from '../../objects/llm/dialects/openai.ts'
import { FIXTURES } from './fixtures.ts'
import { joinedDeltas, runDialect, utf8 } from './support.ts'

const KINDS = { anthropic: 'anthropic/messages', openai: 'openai/responses', 'openai-compatible': 'openai/completions' } as const

/** The same stream with every JSON `data:` line spaced out, which no hot shape accepts: the full path only. */
function spaced(text: string): string {
  return text.replace(/^data: (\{.*)$/gm, (line, json: string) => {
    try {
      return `data: ${JSON.stringify(JSON.parse(json), null, 1).replace(/\n/g, '')}`
    } catch {
      return line // a cut line (a truncated recording) stays as it was
    }
  })
}

describe('every recorded stream reads the same through the fast path and through JSON.parse alone', () => {
  const cases = Object.entries(FIXTURES).flatMap(([vendor, files]) =>
    Object.entries(files).map(([file, text]) => [`${vendor}/${file}`, KINDS[vendor as keyof typeof KINDS], text] as const),
  )
  it.each(cases)('%s', (_, kind, text) => {
    const dialect = dialectFor(kind)!
    const fast = runDialect(dialect, [utf8(text)])
    const full = runDialect(dialect, [utf8(spaced(text))])
    expect(spaced(text)).not.toBe(text)
    expect(joinedDeltas(fast.events)).toEqual(joinedDeltas(full.events))
    expect(String(fast.error)).toBe(String(full.error))
  })
})

/** A small seeded generator, so a failure names the case that made it. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

describe('a frame with varying integers and tail agrees with its regex and with JSON.parse', () => {
  const regexOnly = (shape: HotShape): HotShape => ({ ...shape, frame: undefined })
  const pieces = ['a', 'Z', ' ', '{', '}', ':', ',', '\\"', '\\\\', '\\n', '\\t', '\\/', '\\u00e9', '\\ud83c\\udf0d', 'é', '日本', '🌍', '"', '\\', '\\x', '\\u12', '\u0001', '\\u00G0']
  const integers = ['0', '7', '42', '1234567', '01', '-1', '1.5', '', 'x', '1e3']
  const tails = ['"}', '","obfuscation":"aB3x"}', '","obfuscation":"Zz09+/=_-"}', '","obfuscation":""}', '","obfuscation":"a b"}', '","obfuscation":"aB3x"', '" }', '","obfuscation":"x","usage":1}', '"}}']
  const shapes: [string, HotShape, (seq: string, body: string, tail: string, item: string) => string][] = [
    ['arguments', ARGUMENTS_DELTA, (seq, body, tail, item) => `{"type":"response.function_call_arguments.delta","sequence_number":${seq},"item_id":"${item}","output_index":0,"delta":"${body}${tail}`],
    ['output text', OUTPUT_TEXT_DELTA, (seq, body, tail, item) => `{"type":"response.output_text.delta","sequence_number":${seq},"item_id":"${item}","output_index":0,"content_index":0,"delta":"${body}${tail}`],
  ]
  it.each(shapes)('%s: 3,000 seeded events after a remembered frame', (_, shape, event) => {
    const next = random(14)
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!
    let framed = 0
    for (let i = 0; i < 3000; i++) {
      // Remember a frame, then read another event against it.
      expect(hotRead(event(String(i), 'x', '","obfuscation":"aB3x"}', 'fc_1'), shape)?.text).toBe('x')
      const body = Array.from({ length: Math.floor(next() * 6) }, () => pick(pieces)).join('')
      const data = event(next() < 0.7 ? String(Math.floor(next() * 1e6)) : pick(integers), body, next() < 0.6 ? pick(tails.slice(0, 4)) : pick(tails), next() < 0.9 ? 'fc_1' : 'fc_2')
      const fast = hotFrame(data, shape)
      const regex = hotRead(data, regexOnly(shape))
      if (fast === undefined) continue
      framed++
      expect(fast, data).toEqual(regex)
      const parsed = JSON.parse(data) as { delta: string; item_id: string }
      expect(fast.text, data).toBe(parsed.delta)
    }
    expect(framed).toBeGreaterThan(500)
  })

  it('an item id other than the remembered one is never read through the frame', () => {
    hotRead('{"type":"response.function_call_arguments.delta","sequence_number":1,"item_id":"fc_1","output_index":0,"delta":"a"}', ARGUMENTS_DELTA)
    const other = '{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_2","output_index":0,"delta":"b"}'
    expect(hotFrame(other, ARGUMENTS_DELTA)).toBeUndefined()
    expect(hotRead(other, ARGUMENTS_DELTA)).toEqual({ text: 'b', index: -1, id: 'fc_2' })
  })
})

describe('Fragments', () => {
  it('gives back every piece in order, across its joined runs', () => {
    const fragments = new Fragments()
    const pieces = Array.from({ length: 1000 }, (_, i) => `${i},`)
    for (const piece of pieces) fragments.push(piece)
    expect(fragments.text()).toBe(pieces.join(''))
    expect(new Fragments().text()).toBe('')
  })
})
