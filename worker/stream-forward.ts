/**
 * How a stream request reaches its object: the query checked, then the headers only the worker
 * may set (delivery/protocol.ts) replaced on the way in, whatever the client sent: the caller the
 * gate established, when that caller's credential expires, and the one-use ticket it came with.
 * One function for every streaming route, so no stream can be opened with a forged ticket or
 * expiry, and every stream ends with its credential.
 *
 * @example
 * .get('/:id/events', async (c) => forwardStream(c, await sessionStub(c.env, c.req.param('id'))))
 */
import type { Context } from 'hono'
import { AUTH_EXPIRY_HEADER, CALLER_HEADER, TICKET_HEADER } from '../objects/delivery/protocol.ts'
import { StreamQuery } from '../objects/delivery/queries.ts'
import { parseOrThrow } from '../objects/core/validate.ts'
import { callerOf } from './caller.ts'
import type { AppEnv } from './env.ts'

/** Forwards the stream request to `object`'s fetch with the gate's headers set. */
export async function forwardStream(c: Context<AppEnv>, object: { fetch(request: Request): Promise<Response> }): Promise<Response> {
  parseOrThrow(StreamQuery, c.req.query(), 'INVALID_QUERY')
  const headers = new Headers(c.req.raw.headers)
  headers.delete(TICKET_HEADER)
  headers.set(CALLER_HEADER, JSON.stringify(callerOf(c)))
  headers.set(AUTH_EXPIRY_HEADER, String(c.get('authExp')))
  const ticket = c.get('ticket')
  if (ticket) headers.set(TICKET_HEADER, JSON.stringify(ticket))
  return object.fetch(new Request(c.req.raw, { headers }))
}
