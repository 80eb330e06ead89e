/**
 * The title a session's first prompt gives it: its first line that has text, trimmed, cut to
 * `SESSION_TITLE_LIMITS.fromPrompt` characters (a cut ends in an ellipsis). Pure: the projection
 * folds it from the first `admitted` event, so it costs no row of its own.
 *
 * @example
 * titleFromPrompt('\n  Fix the login bug\nIt fails on Safari') // 'Fix the login bug'
 */
import { SESSION_TITLE_LIMITS } from '../../core/limits.ts'

export function titleFromPrompt(text: string): string | null {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '')
  if (line === undefined) return null
  const chars = [...line]
  return chars.length <= SESSION_TITLE_LIMITS.fromPrompt ? line : `${chars.slice(0, SESSION_TITLE_LIMITS.fromPrompt - 1).join('')}…`
}
