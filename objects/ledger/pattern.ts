/**
 * Regular expressions from outside the code (a schema's `pattern`, `patternProperties` and
 * `format: regex`) run on RE2 (the `re2js` port), never on V8's backtracking engine: RE2 matches
 * in time linear in the input whatever the pattern, where V8 takes over a minute on 31
 * characters for `^a*a*a*a*a*a*a*a*a*a*a*a*$`. A pattern is accepted when it is ECMA-262 (the
 * dialect JSON Schema names: V8 parses it in `u` mode, never runs it), small, and RE2 can run it
 * with the same meaning (pattern-syntax.ts rewrites the escapes whose meaning differs). What
 * RE2 cannot run in linear time (lookaround, backreferences) is refused, with the reason.
 *
 * Compiling costs time in the pattern's size and in RE2's program, which bounded repetitions
 * multiply (`[^x]{1,999}` is a thousand copies): measured in Node, a 4 KiB pattern of them took
 * 4.6 s to compile, and re2js spends some 10–50 µs per character or state. So a pattern's cost,
 * the larger of its length and its weight (pattern-syntax.ts), is at most `MAX_PATTERN_COST`,
 * and a schema's patterns together at most `MAX_SCHEMA_PATTERN_COST` (schema-check.ts);
 * compiled patterns are kept in a small LRU, so a schema's patterns are compiled once per isolate.
 * Pure: no platform imports.
 */
import { RE2JS } from 're2js'
import { MAX_PATTERN_COST } from '../core/limits.ts'
import { toRe2 } from './pattern-syntax.ts'

/** A compiled pattern: `test` is an unanchored search, as `RegExp.prototype.test`. */
export interface LinearPattern {
  readonly source: string
  test(input: string): boolean
}

/** V8's constructor, held before anything can stand in for the global (see validator.ts). */
const NativeRegExp = RegExp
const CACHED = 256
const cache = new Map<string, LinearPattern | string>()

/**
 * The compiled pattern, or the reason it is refused.
 *
 * @example
 * const compiled = compilePattern('^a*a*a*$')
 * typeof compiled !== 'string' && compiled.test('aaab') // false, in linear time
 * compilePattern('(?=a)a') // 'lookahead is not supported (RE2 matches in linear time and has none)'
 */
export function compilePattern(source: string): LinearPattern | string {
  const cached = cache.get(source)
  if (cached !== undefined) {
    cache.delete(source)
    cache.set(source, cached)
    return cached
  }
  const compiled = compile(source)
  cache.set(source, compiled)
  if (cache.size > CACHED) cache.delete(cache.keys().next().value!)
  return compiled
}

/**
 * What compiling `source` costs, in characters or states, whichever is more, without compiling
 * it: what a schema's pattern budget counts. A pattern V8 cannot parse costs its length.
 *
 * @example
 * patternCost('^[a-z]{1,64}$') // 66
 */
export function patternCost(source: string): number {
  if (source.length > MAX_PATTERN_COST) return source.length
  try {
    new NativeRegExp(source, 'u')
  } catch {
    return source.length
  }
  const translated = toRe2(source, Number.POSITIVE_INFINITY)
  return Math.max(source.length, translated.ok ? translated.weight : 0)
}

/** Why `source` is refused, or null when it can be used. */
export function patternRefusal(source: string): string | null {
  const compiled = compilePattern(source)
  return typeof compiled === 'string' ? compiled : null
}

function compile(source: string): LinearPattern | string {
  if (source.length > MAX_PATTERN_COST) return `the pattern is ${source.length} characters; the limit is ${MAX_PATTERN_COST}`
  try {
    // Parsing only: V8 compiles a pattern to code on its first match, which never happens here.
    new NativeRegExp(source, 'u')
  } catch (error) {
    return `the pattern does not compile: ${(error as Error).message}`
  }
  const translated = toRe2(source, MAX_PATTERN_COST)
  if (!translated.ok) return translated.reason
  try {
    const program = RE2JS.compile(translated.re2)
    return { source, test: (input) => program.test(input) }
  } catch (error) {
    return `the pattern cannot run in linear time: ${(error as Error).message.replace(/^error parsing regexp: /, '')}`
  }
}

/**
 * What `LinearRegExp` throws for a refused pattern: a `SyntaxError`, as V8 throws for a pattern
 * it cannot parse (so `format: regex` answers false), that the validator can tell apart.
 */
export class PatternRefused extends SyntaxError {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`the pattern ${JSON.stringify(pattern.slice(0, 200))} is refused: ${reason}`)
  }
}

/**
 * A stand-in for `RegExp` with the one use a JSON Schema validator makes of it:
 * `new RegExp(pattern, 'u').test(string)`. A refused pattern throws `PatternRefused`.
 *
 * @example
 * new LinearRegExp('^a+$').test('aaa') // true
 */
export class LinearRegExp {
  readonly source: string
  readonly #pattern: LinearPattern

  constructor(source: string | { source: string }) {
    const text = typeof source === 'string' ? source : source.source
    const compiled = compilePattern(text)
    if (typeof compiled === 'string') throw new PatternRefused(text, compiled)
    this.source = compiled.source
    this.#pattern = compiled
  }

  test(input: string): boolean {
    return this.#pattern.test(String(input))
  }
}
