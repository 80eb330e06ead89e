/**
 * Whether a file is text, and its text: UTF-8 without a NUL byte. The tools that read files as
 * lines (read, edit, grep, apply_patch) describe anything else as binary rather than dump it; the
 * byte-order mark, if any, is kept, so writing the text back changes no byte it did not mean to.
 *
 * Pure: no platform imports.
 */

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * @example
 * textOf(new TextEncoder().encode('hi')) // 'hi'
 * textOf(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0])) // null
 */
export function textOf(bytes: Uint8Array): string | null {
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch {
    return null
  }
  // In UTF-8 a 0x00 byte is only ever U+0000; searching the string is several times faster than the bytes.
  return text.includes('\u0000') ? null : text
}

/** One page of a text's lines, and how many lines the text has. */
export interface LinePage {
  /** The lines shown, each cut to `lineChars` (with a note saying so). */
  lines: string[]
  /** How many lines the text has: `\n` or `\r\n` ends a line, a final line end opens none. */
  total: number
  /** The 1-based line after the page, or null when the page reaches the end. */
  next: number | null
}

/**
 * Lines `from` (1-based) on, at most `max` of them and `chars` characters in all (at least one line),
 * found by scanning for line ends rather than splitting the whole text: a page of a large file holds
 * the page, not an array of every line.
 *
 * @example
 * linePage('a\nb\r\nc\n', 2, 10, { chars: 100, lineChars: 10 }) // { lines: ['b', 'c'], total: 3, next: null }
 */
export function linePage(text: string, from: number, max: number, limits: { chars: number; lineChars: number }): LinePage {
  if (text === '') return { lines: [], total: 0, next: null }
  // Where the last line ends: one final line end opens no line after it.
  const end = text.endsWith('\r\n') ? text.length - 2 : text.endsWith('\n') ? text.length - 1 : text.length
  const endOf = (start: number) => {
    const found = text.indexOf('\n', start)
    return found === -1 || found >= end ? -1 : found
  }
  let start = 0
  let line = 1
  for (; line < from; line++) {
    const found = endOf(start)
    if (found === -1) return { lines: [], total: line, next: null }
    start = found + 1
  }
  const lines: string[] = []
  let chars = 0
  for (;; line++) {
    if (lines.length === max) break
    const found = endOf(start)
    const stop = found === -1 ? end : found > start && text.charCodeAt(found - 1) === 13 ? found - 1 : found
    const raw = text.slice(start, stop)
    const shown = raw.length > limits.lineChars ? `${raw.slice(0, limits.lineChars)}… [line cut at ${limits.lineChars} characters]` : raw
    if (lines.length > 0 && chars + shown.length + 1 > limits.chars) break
    lines.push(shown)
    chars += shown.length + 1
    if (found === -1) return { lines, total: line, next: null }
    start = found + 1
  }
  // `line` starts at `start` and is not shown: count it and every line after it.
  let total = line
  for (let found = text.indexOf('\n', start); found !== -1 && found < end; found = text.indexOf('\n', found + 1)) total++
  return { lines, total, next: line }
}
