/**
 * Glob patterns over workspace paths (the `glob` tool, `grep`'s file filter, and path rules of the
 * permission policy), matched in linear time: a glob is translated to an RE2 expression and run on
 * `re2js`, never on JavaScript's backtracking `RegExp`. Measured before choosing: picomatch (the usual
 * library) compiles `**\/*a*a*a*a*a*a*a*a*b` to a RegExp that took 8.1 s on a 48-character name, and
 * a 12-star glob 71 s on 40 characters, in Node 22; a glob is input from a model or a config, so it
 * must not be able to hold the isolate.
 *
 * Syntax: `*` any characters but `/`; `**` as a whole segment, any number of directories; `?` one
 * character but `/`; `[abc]`, `[a-z]`, `[!x]` or `[^x]` one character of a class (never `/`);
 * `{a,b}` alternatives (nested, at most 8 deep); `\` escapes the next character. A glob without `/`
 * matches a name at any depth (`*.ts` is `**\/*.ts`); one with `/` is anchored at the workspace root
 * (a leading `/` anchors a bare name: `/README.md` is the root's only); a trailing `/` means everything below. Dot-files match `*` like any name.
 *
 * Pure: no platform imports.
 */
import { RE2JS } from 're2js'
import { NeuronError } from '../core/errors.ts'
import { WORKSPACE_SEARCH_LIMITS } from '../core/limits.ts'

/** A compiled glob. */
export interface Glob {
  readonly source: string
  test(path: string): boolean
}

const MAX_BRACE_DEPTH = 8

function invalidPattern(pattern: string, reason: string): NeuronError {
  const shown = pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern
  return new NeuronError('PATTERN_INVALID', `pattern ${JSON.stringify(shown)} ${reason}`, { status: 400, details: { pattern: shown, reason } })
}

/** The RE2 expression of a glob, matched against a whole path. */
export function globToRe2(glob: string): string {
  let text = glob.startsWith('/') ? glob.slice(1) : glob
  if (text.endsWith('/')) text += '**'
  const anywhere = !glob.startsWith('/') && !text.includes('/')
  let out = ''
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === '\\') {
      const next = text[i + 1]
      if (next === undefined) throw invalidPattern(glob, 'ends with an escape')
      out += RE2JS.quote(next)
      i++
    } else if (ch === '*') {
      let j = i
      while (text[j] === '*') j++
      const wholeSegment = j - i >= 2 && (i === 0 || text[i - 1] === '/') && (j === text.length || text[j] === '/')
      if (wholeSegment && text[j] === '/') {
        out += '(?:[^/]*/)*'
        i = j
      } else {
        out += wholeSegment ? '.*' : '[^/]*'
        i = j - 1
      }
    } else if (ch === '?') {
      out += '[^/]'
    } else if (ch === '[') {
      const close = text.indexOf(']', i + 2)
      if (close < 0) {
        out += '\\['
        continue
      }
      let body = text.slice(i + 1, close)
      const negate = body[0] === '!' || body[0] === '^'
      if (negate) body = body.slice(1)
      const escaped = body.replace(/[\\\]\[^]/g, (c) => `\\${c}`)
      out += negate ? `[^/${escaped}]` : `[${escaped}]`
      i = close
    } else if (ch === '{') {
      if (++depth > MAX_BRACE_DEPTH) throw invalidPattern(glob, `nests braces deeper than ${MAX_BRACE_DEPTH}`)
      out += '(?:'
    } else if (ch === ',' && depth > 0) {
      out += '|'
    } else if (ch === '}' && depth > 0) {
      depth--
      out += ')'
    } else {
      out += RE2JS.quote(ch)
    }
  }
  if (depth > 0) throw invalidPattern(glob, 'has an unclosed "{"')
  return anywhere ? `(?:.*/)?${out}` : out
}

/**
 * @example
 * compileGlob('src/**\/*.ts').test('src/a/b.ts') // true
 * compileGlob('*.env').test('deploy/prod.env') // true
 */
export function compileGlob(glob: string): Glob {
  if (typeof glob !== 'string' || glob === '') throw invalidPattern(String(glob), 'is empty')
  if (glob.length > WORKSPACE_SEARCH_LIMITS.patternBytes) throw invalidPattern(glob, `is longer than ${WORKSPACE_SEARCH_LIMITS.patternBytes} characters`)
  const source = globToRe2(glob)
  let re: RE2JS
  try {
    re = RE2JS.compile(source)
  } catch (error) {
    throw invalidPattern(glob, `does not compile: ${(error as Error).message}`)
  }
  return { source, test: (path) => re.testExact(path) }
}
