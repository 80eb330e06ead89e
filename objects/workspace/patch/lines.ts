/**
 * A text file as lines: split without their line ends, with what is needed to write it back
 * byte-identical where nothing changed: the line end it uses (`\r\n` when its first line ends so),
 * and whether its last line ends with one. Patches are applied to lines, never to raw text.
 *
 * Pure: no platform imports.
 */

export interface TextLines {
  lines: string[]
  eol: '\n' | '\r\n'
  finalNewline: boolean
}

/**
 * @example
 * splitLines('a\r\nb') // { lines: ['a', 'b'], eol: '\r\n', finalNewline: false }
 * splitLines('') // { lines: [], eol: '\n', finalNewline: false }
 */
export function splitLines(text: string): TextLines {
  const first = text.indexOf('\n')
  const eol = first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n'
  if (text === '') return { lines: [], eol, finalNewline: false }
  const finalNewline = text.endsWith('\n')
  const body = finalNewline ? text.slice(0, -1) : text
  // Each line loses its own `\r` before the `\n`, whichever line end the file mostly uses.
  const lines = body.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
  return { lines, eol, finalNewline }
}

/**
 * @example
 * joinLines({ lines: ['a', 'b'], eol: '\r\n', finalNewline: true }) // 'a\r\nb\r\n'
 */
export function joinLines({ lines, eol, finalNewline }: TextLines): string {
  if (lines.length === 0) return ''
  return lines.join(eol) + (finalNewline ? eol : '')
}
