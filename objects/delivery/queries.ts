/**
 * The query shapes of paged and streamed reads, one set for every route that pages a log or
 * opens a stream (sessions, orchestrations, ledgers, the graph), so a cursor means the same
 * everywhere: `after` a sequence already seen, at most `limit` (≤ MAX_PAGE) items.
 *
 * @example
 * const q = parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY') // { after: 0, limit: 100 } by default
 * export const WalkQuery = z.strictObject(Paging)                   // both optional, the reader defaults them
 */
import { z } from 'zod'
import { MAX_PAGE } from '../core/limits.ts'

/** `?after=&limit=`, both optional: for readers that apply their own defaults. */
export const Paging = {
  after: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
}

/** `?after=&limit=` of the paged session and orchestration routes, defaulted. */
export const PageQuery = z.strictObject({
  after: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(100),
})

/** The query a stream route accepts: where to resume, and a ticket when there is no bearer header. */
export const StreamQuery = z.strictObject({
  after: Paging.after,
  ticket: z.string().optional(),
})
