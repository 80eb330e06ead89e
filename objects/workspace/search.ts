/**
 * `grep` and `glob` over the workspace, bounded. Patterns run on `re2js` (RE2: linear in the text,
 * whatever the pattern), the same engine that checks JSON Schema patterns; globs are translated to it
 * (glob.ts). A search walks the tree in path order through a `SearchSource` (the stored index pages
 * it; nothing holds the tree), reads one file at a time, skips binary files, and stops at
 * `WORKSPACE_SEARCH_LIMITS`: at most `matches` hits and `scanBytes` of content read, each hit's line
 * cut to `lineChars`. When it stops early it says so (`truncated`) and where to go on (`next`).
 *
 * Pure: no platform imports.
 */
import { RE2JS } from 're2js'
import { NeuronError } from '../core/errors.ts'
import { WORKSPACE_SEARCH_LIMITS } from '../core/limits.ts'
import { compileGlob } from './glob.ts'
import { textOf } from './text.ts'
import type { FileEntry } from './tree.ts'

/** What a search reads: files in path order from a path on (that path included), and one file's bytes. */
export interface SearchSource {
  files(from: string | null): Iterable<FileEntry>
  read(path: string): Uint8Array | null
}

/** Where a search goes on: in file `path`, after line `line` (0: the whole file). */
export interface SearchCursor {
  path: string
  line: number
}

export interface GrepQuery {
  /** An RE2 expression (or, with `fixed`, a literal string). */
  pattern: string
  fixed?: boolean
  ignoreCase?: boolean
  /** Only files whose path matches this glob. */
  glob?: string
  /** Continue from here (a previous answer's `next`). */
  from?: SearchCursor
  /** At most this many hits (and never more than the limit). */
  limit?: number
}

export interface GrepHit {
  path: string
  /** 1-based. */
  line: number
  text: string
}

export interface GrepResult {
  hits: GrepHit[]
  /** The search stopped at a bound before reading every file. */
  truncated: boolean
  /** Where to go on (`from`) when `truncated`. */
  next: SearchCursor | null
  /** Files skipped as binary. */
  binary: number
}


/** The bounds a search keeps (`WORKSPACE_SEARCH_LIMITS` unless a test narrows them). */
export type SearchLimits = { [K in keyof typeof WORKSPACE_SEARCH_LIMITS]: number }

/** A pattern on the linear-time engine, or `PATTERN_INVALID`. */
export function compilePattern(pattern: string, options: { fixed?: boolean; ignoreCase?: boolean } = {}): RE2JS {
  if (typeof pattern !== 'string' || pattern === '') throw new NeuronError('PATTERN_INVALID', 'a pattern is a non-empty string', { status: 400, details: { reason: 'empty' } })
  if (pattern.length > WORKSPACE_SEARCH_LIMITS.patternBytes) {
    throw new NeuronError('PATTERN_INVALID', `a pattern may be ${WORKSPACE_SEARCH_LIMITS.patternBytes} characters`, { status: 400, details: { reason: 'too long' } })
  }
  try {
    return RE2JS.compile(options.fixed ? RE2JS.quote(pattern) : pattern, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
  } catch (error) {
    throw new NeuronError('PATTERN_INVALID', `pattern does not compile: ${(error as Error).message}`, { status: 400, details: { reason: (error as Error).message } })
  }
}

/**
 * @example
 * grep(source, { pattern: 'TODO\\(\\w+\\)', glob: 'src/**' }) // { hits: [{ path: 'src/a.ts', line: 3, text: '// TODO(ada): …' }], truncated: false, … }
 */
export function grep(source: SearchSource, query: GrepQuery, limits: SearchLimits = WORKSPACE_SEARCH_LIMITS): GrepResult {
  const re = compilePattern(query.pattern, query)
  const glob = query.glob === undefined ? null : compileGlob(query.glob)
  const max = Math.min(query.limit ?? limits.matches, limits.matches)
  const hits: GrepHit[] = []
  let scanned = 0
  let binary = 0
  for (const entry of source.files(query.from?.path ?? null)) {
    if (glob && !glob.test(entry.path)) continue
    const skip = entry.path === query.from?.path ? query.from.line : 0
    if (scanned + entry.size > limits.scanBytes && scanned > 0) return { hits, truncated: true, next: { path: entry.path, line: skip }, binary }
    const bytes = source.read(entry.path)
    if (bytes === null) continue
    scanned += bytes.byteLength
    const text = textOf(bytes)
    if (text === null) {
      binary++
      continue
    }
    const lines = text.split('\n')
    for (let i = skip; i < lines.length; i++) {
      const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!
      if (!re.test(line)) continue
      if (hits.length === max) return { hits, truncated: true, next: { path: entry.path, line: i }, binary }
      hits.push({ path: entry.path, line: i + 1, text: line.length > limits.lineChars ? `${line.slice(0, limits.lineChars)}…` : line })
    }
  }
  return { hits, truncated: false, next: null, binary }
}

export interface GlobResult {
  paths: string[]
  truncated: boolean
  next: string | null
}

/**
 * The files whose path matches `pattern`, in path order, at most `limit`.
 *
 * @example
 * await globFiles(source, '**\/*.md') // { paths: ['README.md', 'docs/a.md'], truncated: false, next: null }
 */
export async function globFiles(
  source: { files(from: string | null): Iterable<FileEntry> | AsyncIterable<FileEntry> },
  pattern: string,
  options: { after?: string; limit?: number } = {},
  limits: SearchLimits = WORKSPACE_SEARCH_LIMITS,
): Promise<GlobResult> {
  const glob = compileGlob(pattern)
  const max = Math.min(options.limit ?? limits.matches, limits.matches)
  const paths: string[] = []
  for await (const entry of source.files(options.after ?? null)) {
    if (entry.path === options.after || !glob.test(entry.path)) continue
    if (paths.length === max) return { paths, truncated: true, next: paths.at(-1)! }
    paths.push(entry.path)
  }
  return { paths, truncated: false, next: null }
}
