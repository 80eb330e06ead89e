/**
 * The `edit` tool's decision: replace an exact string in a file's text. The old string must occur
 * exactly once (or `replaceAll` says every occurrence is meant), so an edit never lands on a place
 * the model did not see: none is `EDIT_NOT_FOUND` (422), several is `EDIT_NOT_UNIQUE` (409, with the
 * count and the lines, so the model can add context). One leniency, for line ends only: in a file
 * that uses `\r\n`, a string written with `\n` is matched and replaced with the file's line ends.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'

export interface EditRequest {
  oldString: string
  newString: string
  replaceAll?: boolean
}

export interface EditResult {
  text: string
  /** How many occurrences were replaced. */
  replaced: number
  /** The 1-based line of the first replacement. */
  line: number
}

/** Where `needle` occurs in `text`, by index (non-overlapping, left to right). */
function occurrences(text: string, needle: string): number[] {
  const out: number[] = []
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) out.push(at)
  return out
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length

/**
 * @example
 * editText('let a = 1\nlet b = 1\n', { oldString: 'a = 1', newString: 'a = 2' }) // { text: 'let a = 2\nlet b = 1\n', replaced: 1, line: 1 }
 * editText('x x', { oldString: 'x', newString: 'y' }) // throws EDIT_NOT_UNIQUE
 */
export function editText(text: string, request: EditRequest): EditResult {
  let { oldString, newString } = request
  if (typeof oldString !== 'string' || oldString === '') throw new NeuronError('EDIT_INVALID', 'oldString must be a non-empty string (write a file to create it)', { status: 400, details: { reason: 'empty oldString' } })
  if (oldString === newString) throw new NeuronError('EDIT_INVALID', 'oldString and newString are the same: the edit changes nothing', { status: 400, details: { reason: 'no change' } })
  let found = occurrences(text, oldString)
  if (found.length === 0 && text.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r\n')) {
    oldString = oldString.replace(/\n/g, '\r\n')
    newString = newString.replace(/\r?\n/g, '\r\n')
    found = occurrences(text, oldString)
  }
  if (found.length === 0) throw new NeuronError('EDIT_NOT_FOUND', 'oldString is not in the file', { status: 422, details: {} })
  if (found.length > 1 && !request.replaceAll) {
    const lines = found.slice(0, 20).map((index) => lineOf(text, index))
    throw new NeuronError('EDIT_NOT_UNIQUE', `oldString occurs ${found.length} times (lines ${lines.join(', ')}${found.length > 20 ? ', …' : ''}); add context to make it unique, or set replaceAll`, {
      status: 409,
      details: { count: found.length, lines },
    })
  }
  let out = ''
  let at = 0
  for (const index of found) {
    out += text.slice(at, index) + newString
    at = index + oldString.length
  }
  out += text.slice(at)
  return { text: out, replaced: found.length, line: lineOf(text, found[0]!) }
}
