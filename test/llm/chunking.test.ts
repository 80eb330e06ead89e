/**
 * Chunking torture: every recorded stream, cut in two at every byte offset
 * (inside UTF-8 characters, inside CRLF pairs, inside `data:`), and fed one byte
 * at a time, yields exactly the SSE events, normalized events and error of the
 * whole stream (a call's argument deltas compared joined: they join per chunk). So do the
 * same streams rewritten with CRLF and with CR line ends.
 */
import { describe, expect, it } from 'vitest'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import type { Dialect } from '../../objects/llm/types.ts'
import { FIXTURES } from './fixtures.ts'
import { joinedDeltas, runDialect, splitAt, utf8, withLineEnds } from './support.ts'

const DIALECTS: Record<keyof typeof FIXTURES, Dialect> = {
  anthropic,
  openai,
  'openai-compatible': openaiCompatible,
}

/** SSE events, normalized events and the error's code, comparable with toEqual. */
function outcome(dialect: Dialect, chunks: Uint8Array[]) {
  const { wire, events, error } = runDialect(dialect, chunks)
  return { wire, events: joinedDeltas(events), error: error === undefined ? undefined : (error as { code?: string }).code ?? String(error) }
}

const cases = Object.entries(FIXTURES).flatMap(([name, files]) =>
  Object.entries(files).map(([file, text]) => [`${name}/${file}`, DIALECTS[name as keyof typeof FIXTURES], text] as const),
)

// Each case parses its stream once per byte offset (thousands of full parses): about 2 s on a
// quiet machine, several times that when other suites share the CPU. The bound is on work, not time.
const TORTURE_MS = 60_000

describe('chunking torture', () => {
  it.each(cases)('%s: every split offset and byte-by-byte give the same outcome', (_, dialect, text) => {
    const bytes = utf8(text)
    const whole = outcome(dialect, [bytes])
    expect(whole.events.length + (whole.error ? 1 : 0)).toBeGreaterThan(0)
    for (let at = 1; at < bytes.length; at++) {
      const split = outcome(dialect, splitAt(bytes, at))
      if (JSON.stringify(split) !== JSON.stringify(whole)) expect(split, `split at byte ${at}`).toEqual(whole)
    }
    expect(outcome(dialect, [...bytes].map((b) => new Uint8Array([b])))).toEqual(whole)
  }, TORTURE_MS)

  it.each(cases)('%s: CRLF and CR line ends give the same outcome, at every split', (_, dialect, text) => {
    const whole = outcome(dialect, [utf8(text)])
    for (const end of ['\r\n', '\r'] as const) {
      const bytes = utf8(withLineEnds(text, end))
      expect(outcome(dialect, [bytes])).toEqual(whole)
      for (let at = 1; at < bytes.length; at++) {
        const split = outcome(dialect, splitAt(bytes, at))
        if (JSON.stringify(split) !== JSON.stringify(whole)) expect(split, `${JSON.stringify(end)} split at ${at}`).toEqual(whole)
      }
    }
  }, TORTURE_MS)
})
