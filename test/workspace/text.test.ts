/**
 * Text and line pages: `textOf` tells text from binary (UTF-8 without a NUL byte), and `linePage`
 * pages lines by scanning for line ends. Its answer is checked against the plain definition (drop
 * one final line end, split on `\n` or `\r\n`, take the page) over many small texts built from the
 * characters that matter, so the scan cannot drift from it.
 */
import { describe, expect, it } from 'vitest'
import { jsonBytes, linePage, textOf } from '../../objects/workspace/text.ts'

/** The definition `linePage` must agree with: every line split out, then the page taken. */
function reference(text: string, from: number, max: number, limits: { bytes: number; lineChars: number }) {
  const all = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/)
  const lines: string[] = []
  let at = from - 1
  while (at < all.length && lines.length < max) {
    const line = all[at]!
    const shown = line.length > limits.lineChars ? `${line.slice(0, limits.lineChars)}… [line cut at ${limits.lineChars} characters]` : line
    if (lines.length > 0 && jsonBytes([...lines, shown].join('\n')) > limits.bytes) break
    lines.push(shown)
    at++
  }
  return { lines, total: all.length, next: at < all.length ? at + 1 : null }
}

describe('text', () => {
  it('textOf: UTF-8 without NUL is text; a NUL byte or invalid UTF-8 is not', () => {
    expect(textOf(new TextEncoder().encode('héllo\n'))).toBe('héllo\n')
    expect(textOf(new Uint8Array([0x68, 0, 0x69]))).toBeNull()
    expect(textOf(new Uint8Array([0xff, 0xfe, 0x41]))).toBeNull()
    expect(textOf(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\ufeffA')
  })

  it('linePage agrees with splitting every line, over texts of newlines, carriage returns and long lines', () => {
    const alphabet = ['a', 'é', '"', '\u0001', '\n', '\r', '\r\n', 'xxxxxx']
    let seed = 7
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    for (let round = 0; round < 3000; round++) {
      const text = Array.from({ length: random(12) }, () => alphabet[random(alphabet.length)]).join('')
      const from = 1 + random(6)
      const max = 1 + random(4)
      const limits = { bytes: 1 + random(24), lineChars: 1 + random(8) }
      expect(linePage(text, from, max, limits), JSON.stringify({ text, from, max, limits })).toEqual(reference(text, from, max, limits))
    }
  })

  it('a page of linePage fits its byte budget as JSON, whatever the characters', () => {
    for (const line of ['plain text', '"quoted" \\ and \t tabs', '\u0001\u0002 controls', '漢字とかな', '😀 emoji']) {
      const text = `${line}\n`.repeat(5_000)
      const page = linePage(text, 1, 2_000, { bytes: 15 * 1024, lineChars: 2_000 })
      const shown = JSON.stringify(page.lines.join('\n'))
      expect(new TextEncoder().encode(shown).byteLength - 2).toBeLessThanOrEqual(15 * 1024)
      // The next line would not have fitted.
      expect(jsonBytes([...page.lines, line].join('\n'))).toBeGreaterThan(15 * 1024)
      expect(page.total).toBe(5_000)
    }
  })

  it('linePage of a large text holds the page and counts every line', () => {
    const text = 'line\n'.repeat(100_000)
    expect(linePage(text, 99_999, 10, { bytes: 1000, lineChars: 100 })).toEqual({ lines: ['line', 'line'], total: 100_000, next: null })
    expect(linePage(text, 1, 3, { bytes: 1000, lineChars: 100 })).toEqual({ lines: ['line', 'line', 'line'], total: 100_000, next: 4 })
  })
})
