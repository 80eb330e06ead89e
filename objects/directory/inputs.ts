/**
 * The session listing's request shapes (platform-free: the routes validate with them, the client
 * takes its types from them): the page query of `GET /v1/sessions` and the owner's change of
 * `PATCH /v1/sessions/{id}`.
 *
 * @example
 * parseOrThrow(SessionListQuery, { q: 'release', order: 'newest', live: 'true', limit: '50' }, 'INVALID_QUERY')
 * parseOrThrow(SessionMarkSchema, { title: 'Release notes' }, 'INVALID_REQUEST')
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { parseOrThrow } from '../core/validate.ts'
import { MAX_PAGE, SESSION_TITLE_LIMITS } from '../core/limits.ts'

const flag = z.enum(['true', 'false']).transform((v) => v === 'true')

/**
 * `after` is the cursor of the previous page in either order (0: the start); `live` reads each listed
 * session's status, last activity and approvals (a page of at most `livePage`, its default then; else 100).
 */
export const SessionListQuery = z
  .strictObject({
    after: z.coerce.number().int().nonnegative().default(0),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
    q: z.string().trim().min(1).max(SESSION_TITLE_LIMITS.query).optional(),
    archived: flag.optional(),
    order: z.enum(['oldest', 'newest']).default('oldest'),
    live: flag.default(false),
  })
  .refine((q) => !q.live || q.limit === undefined || q.limit <= SESSION_TITLE_LIMITS.livePage, { message: `a live page lists at most ${SESSION_TITLE_LIMITS.livePage} sessions`, path: ['limit'] })
  .transform((q) => ({ ...q, limit: q.limit ?? (q.live ? SESSION_TITLE_LIMITS.livePage : 100) }))

/** A title: its whitespace at the ends trimmed, one line, 1 to `SESSION_TITLE_LIMITS.chars` characters. */
export const SessionTitle = z.string().trim().min(1).regex(/^[^\r\n]*$/, 'one line').refine((t) => [...t].length <= SESSION_TITLE_LIMITS.chars, `at most ${SESSION_TITLE_LIMITS.chars} characters`)

/** What the owner changes about a session in their listing: its title, whether it is archived, or both. */
export const SessionMarkSchema = z
  .strictObject({ title: SessionTitle.optional(), archived: z.boolean().optional() })
  .refine((m) => m.title !== undefined || m.archived !== undefined, { message: 'give a title, archived, or both' })

export type SessionMark = z.infer<typeof SessionMarkSchema>

/**
 * A mark from a request body: a title over the limit is `TITLE_TOO_LONG` (with the limit), any other
 * bad field `INVALID_REQUEST`.
 *
 * @example
 * parseMark({ title: 'x'.repeat(201) }) // throws TITLE_TOO_LONG
 */
export function parseMark(body: unknown): SessionMark {
  const title = (body as { title?: unknown } | null)?.title
  if (typeof title === 'string' && [...title.trim()].length > SESSION_TITLE_LIMITS.chars) {
    throw new NeuronError('TITLE_TOO_LONG', `a title is at most ${SESSION_TITLE_LIMITS.chars} characters`, { details: { limit: SESSION_TITLE_LIMITS.chars, length: [...title.trim()].length } })
  }
  return parseOrThrow(SessionMarkSchema, body, 'INVALID_REQUEST')
}
