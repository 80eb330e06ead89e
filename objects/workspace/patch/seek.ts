/**
 * Finding where a hunk belongs in a file: the hunk's old side (its context and removed lines) as a
 * run of the file's lines, at or after where the previous hunk ended. Tried in passes, each looser:
 * exact, then ignoring whitespace at line ends (editors and models drop or add it), then ignoring
 * whitespace at both ends (re-indented code). The first pass that finds the run wins; when the patch
 * gives a line number, the match nearest to it wins within that pass, so a hunk whose context repeats
 * lands where the patch meant.
 *
 * Pure: no platform imports.
 */

/** How loosely a hunk's lines were matched. */
export type Fuzz = 'exact' | 'line-end whitespace' | 'whitespace'

const PASSES: [Fuzz, (line: string) => string][] = [
  ['exact', (line) => line],
  ['line-end whitespace', (line) => line.trimEnd()],
  ['whitespace', (line) => line.trim()],
]

/**
 * The 0-based index where `pattern` occurs in `lines` at or after `from`, and how loosely; null when
 * it does not. `atEnd`: only a run ending at the last line counts. `near`: prefer the match nearest
 * this 0-based index.
 *
 * @example
 * seek(['a', 'b ', 'c'], ['b', 'c'], 0) // { index: 1, fuzz: 'line-end whitespace' }
 */
export function seek(lines: string[], pattern: string[], from: number, options: { atEnd?: boolean; near?: number | null } = {}): { index: number; fuzz: Fuzz } | null {
  const last = lines.length - pattern.length
  if (last < from) return null
  for (const [fuzz, norm] of PASSES) {
    const wanted = pattern.map(norm)
    const matches = (start: number) => wanted.every((line, k) => norm(lines[start + k]!) === line)
    if (options.atEnd) {
      if (matches(last)) return { index: last, fuzz }
      continue
    }
    const near = options.near
    if (near === null || near === undefined || near <= from) {
      for (let start = from; start <= last; start++) if (matches(start)) return { index: start, fuzz }
      continue
    }
    // Outward from the line the patch named: the nearest match wins, the earlier one on a tie.
    for (let d = 0; near - d >= from || near + d <= last; d++) {
      if (near - d >= from && near - d <= last && matches(near - d)) return { index: near - d, fuzz }
      if (d > 0 && near + d <= last && near + d >= from && matches(near + d)) return { index: near + d, fuzz }
    }
  }
  return null
}
