/**
 * Headers are an ordered, inject-only list (spec §1.2, law 2). Duplicates
 * accumulate, order is causality, and a correction is a new injection with a
 * reason. Nothing here removes or edits an entry.
 */
import type { Json } from './json.ts'

/** One injection. `ref` names the value's plane-1 schema, `reason` explains a correction. */
export interface Header {
  key: string
  value: Json
  reason?: string
  ref?: string
}

/**
 * Appends an injection and returns the new list; the input is left untouched.
 *
 * @example
 * let h = inject([], 'priority', 'low')
 * h = inject(h, 'priority', 'high', { reason: 'customer escalated' })
 * current(h, 'priority') // 'high'
 */
export function inject(
  headers: readonly Header[],
  key: string,
  value: Json,
  options: { reason?: string; ref?: string } = {},
): Header[] {
  const header: Header = { key, value }
  if (options.reason !== undefined) header.reason = options.reason
  if (options.ref !== undefined) header.ref = options.ref
  return [...headers, header]
}

/** The current value of `key`: the last injection wins; `undefined` when never injected. */
export function current(headers: readonly Header[], key: string): Json | undefined {
  for (let i = headers.length - 1; i >= 0; i--) {
    if (headers[i]!.key === key) return headers[i]!.value
  }
  return undefined
}

/** Every injection of `key`, oldest first: the evolution of the value with its reasons. */
export function history(headers: readonly Header[], key: string): Header[] {
  return headers.filter((header) => header.key === key)
}
