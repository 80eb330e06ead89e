/**
 * Parsing JSON that a client sent: the one way bodies and WebSocket messages
 * become values. Nesting is bounded before parsing, because deep values fail
 * later in places that cannot answer well (recursive validation, canonical form,
 * the structured clone that carries them into an object), and a bad request
 * must be refused before anything crosses into an object or is written.
 */
import { NeuronError } from './errors.ts'
import { MAX_JSON_DEPTH } from './limits.ts'

/**
 * Parses `text` as JSON, or throws `INVALID_JSON` (400), or `JSON_TOO_DEEP` (400)
 * when arrays and objects nest deeper than `maxDepth`.
 *
 * @example
 * parseJson('{"a":[1]}')                  // { a: [1] }
 * parseJson('[[[1]]]', { maxDepth: 2 })    // throws JSON_TOO_DEEP
 */
export function parseJson(text: string, options: { maxDepth?: number; what?: string } = {}): unknown {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH
  const what = options.what ?? 'request body'
  const depth = nestingOf(text)
  if (depth > maxDepth) {
    throw new NeuronError('JSON_TOO_DEEP', `${what} nests arrays and objects ${depth} deep; the limit is ${maxDepth}`, {
      status: 400,
      details: { depth, maxDepth },
    })
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new NeuronError('INVALID_JSON', `${what} is not valid JSON: ${(error as Error).message}`, { status: 400, cause: error })
  }
}

/** The deepest nesting of `[`/`{` outside strings, in one linear scan (no parse, no recursion). */
function nestingOf(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 0x5c) i++ // backslash: skip the escaped character
      else if (code === 0x22) inString = false
    } else if (code === 0x22) inString = true
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > deepest) deepest = depth
    } else if (code === 0x5d || code === 0x7d) depth--
  }
  return deepest
}
