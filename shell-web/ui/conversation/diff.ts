/**
 * A line diff of two texts for the conversation's change cards: the common start and end are cut
 * first (an edit usually touches a few lines), then the middle is diffed by longest common
 * subsequence, bounded: past `MAX_CELLS` the middle is shown as removed then added.
 *
 * @example
 * lineDiff('a\nb\n', 'a\nc\n') // [{ op: ' ', text: 'a' }, { op: '-', text: 'b' }, { op: '+', text: 'c' }]
 */

export interface DiffLine {
  op: ' ' | '-' | '+'
  text: string
}

const MAX_CELLS = 1_000_000
/** Unchanged lines kept around each change. */
const CONTEXT = 3

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n')
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n')
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  const midA = a.slice(start, a.length - end)
  const midB = b.slice(start, b.length - end)
  const out: DiffLine[] = a.slice(0, start).map((text) => ({ op: ' ', text }))
  out.push(...middle(midA, midB))
  out.push(...a.slice(a.length - end).map((text) => ({ op: ' ' as const, text })))
  return out
}

function middle(a: string[], b: string[]): DiffLine[] {
  if ((a.length + 1) * (b.length + 1) > MAX_CELLS) return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))]
  const w = b.length + 1
  const lcs = new Uint32Array((a.length + 1) * w)
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!)
  const out: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) (out.push({ op: ' ', text: a[i]! }), i++, j++)
    else if (j < b.length && (i === a.length || lcs[i * w + j + 1]! >= lcs[(i + 1) * w + j]!)) out.push({ op: '+', text: b[j++]! })
    else out.push({ op: '-', text: a[i++]! })
  }
  return out
}

/** The diff with unchanged runs cut to `CONTEXT` lines around each change (`null`: lines left out). */
export function withContext(lines: DiffLine[]): (DiffLine | null)[] {
  const near = lines.map(() => false)
  lines.forEach((line, i) => {
    if (line.op === ' ') return
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(lines.length - 1, i + CONTEXT); k++) near[k] = true
  })
  const out: (DiffLine | null)[] = []
  lines.forEach((line, i) => {
    if (near[i]) out.push(line)
    else if (out.at(-1) !== null) out.push(null)
  })
  return out
}
