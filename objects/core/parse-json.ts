/**
 * Parsing JSON that a client sent: the one way bodies and WebSocket messages
 * become values. Nesting is bounded before parsing, because deep values fail
 * later in places that cannot answer well (recursive validation, canonical form,
 * the structured clone that carries them into an object), and a bad request
 * must be refused before anything crosses into an object or is written. For the same
 * reason a parsed value must be one the ledger can store: JSON text can spell a lone
 * surrogate (`"\ud800"`) or a number past the double range (`1e999`, which parses to
 * Infinity), and either one would only fail at the append, deep inside an object.
 */
import { NeuronError, NotJsonCompatibleError } from './errors.ts'
import { MAX_JSON_DEPTH } from './limits.ts'

/**
 * Parses `text` as JSON, or throws `INVALID_JSON` (400), `JSON_TOO_DEEP` (400)
 * when arrays and objects nest deeper than `maxDepth`, or `NOT_JSON_COMPATIBLE`
 * (400, with the value's path) for a lone surrogate or a non-finite number.
 *
 * @example
 * parseJson('{"a":[1]}')                  // { a: [1] }
 * parseJson('[[[1]]]', { maxDepth: 2 })    // throws JSON_TOO_DEEP
 * parseJson('{"a":"\\ud800"}')            // throws NOT_JSON_COMPATIBLE at $.a
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
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new NeuronError('INVALID_JSON', `${what} is not valid JSON: ${(error as Error).message}`, { status: 400, cause: error })
  }
  storable(value, '$')
  return value
}

/** Throws `NOT_JSON_COMPATIBLE` at the first lone surrogate or non-finite number; the nesting is already bounded. */
function storable(value: unknown, path: string): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw new NotJsonCompatibleError(path, 'lone surrogate in string')
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonCompatibleError(path, `non-finite number ${value}`)
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) storable(value[i], `${path}[${i}]`)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!key.isWellFormed()) throw new NotJsonCompatibleError(path, 'lone surrogate in a key')
      storable(item, `${path}.${key}`)
    }
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
