/**
 * A page of a query, shared by every query verb, the routes that expose them
 * and the typed client (no platform imports). Its size limit, MAX_PAGE, is in
 * objects/core/limits.ts.
 */
import type { Stored } from './envelope.ts'

/**
 * One page of a query. `next` is the cursor to pass as `after`, or `null` at the end.
 * A page may hold fewer than `limit` items when their payloads reach `PAGE_PAYLOAD_BYTES`.
 */
export interface Page {
  items: Stored[]
  next: number | null
}

/** Paging: start after this cursor (a sequence, or a walk depth), return at most `limit` (default 100). */
export interface PageOptions {
  after?: number
  limit?: number
}
