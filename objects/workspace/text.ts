/**
 * Whether a file is text, and its text: UTF-8 without a NUL byte. The tools that read files as
 * lines (read, edit, grep, apply_patch) describe anything else as binary rather than dump it; the
 * byte-order mark, if any, is kept, so writing the text back changes no byte it did not mean to.
 *
 * Pure: no platform imports.
 */
import { utf8Length } from '../ledger/json.ts'

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

/** The UTF-8 bytes `text` takes inside a JSON string (without the quotes). */
export function jsonBytes(text: string): number {
  return utf8Length(JSON.stringify(text)) - 2
}

/**
 * Lines `from` (1-based) on, at most `max` of them and at most `bytes` of JSON for the page's text
 * (the lines joined by `\n`, as a JSON string holds them; at least one line), found by scanning for
 * line ends rather than splitting the whole text: a page of a large file holds the page, not an
 * array of every line.
 *
 * @example
 * linePage('a\nb\r\nc\n', 2, 10, { bytes: 100, lineChars: 10 }) // { lines: ['b', 'c'], total: 3, next: null }
 */
export function linePage(text: string, from: number, max: number, limits: { bytes: number; lineChars: number }): LinePage {
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
  let bytes = 0
  for (;; line++) {
    if (lines.length === max) break
    const found = endOf(start)
    const stop = found === -1 ? end : found > start && text.charCodeAt(found - 1) === 13 ? found - 1 : found
    const raw = text.slice(start, stop)
    const shown = raw.length > limits.lineChars ? `${raw.slice(0, limits.lineChars)}… [line cut at ${limits.lineChars} characters]` : raw
    // Each line after the first costs its `\n` too, two bytes in JSON.
    const cost = jsonBytes(shown) + (lines.length > 0 ? 2 : 0)
    if (lines.length > 0 && bytes + cost > limits.bytes) break
    lines.push(shown)
    bytes += cost
    if (found === -1) return { lines, total: line, next: null }
    start = found + 1
  }
  // `line` starts at `start` and is not shown: count it and every line after it.
  let total = line
  for (let found = text.indexOf('\n', start); found !== -1 && found < end; found = text.indexOf('\n', found + 1)) total++
  return { lines, total, next: line }
}
