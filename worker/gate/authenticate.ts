/**
 * The authenticate stage: the only place a credential is checked. A request
 * carries `Authorization: Bearer <jwt>`; a stream route (SSE / WebSocket) may
 * instead carry `?ticket=` minted by `POST /v1/sessions/:id/tickets`, since
 * browsers cannot set headers on those. Everything after this stage reads
 * `c.var.principal`.
 */
import type { MiddlewareHandler } from 'hono'
import { NeuronError } from '../../objects/core/errors.ts'
import type { Env } from '../../objects/core/env.ts'
import type { AppEnv } from '../env.ts'
import { authConfigOf } from './auth-config.ts'
import { Authenticator, expOf } from './authenticator.ts'

const STREAM_ROUTE = /^\/v1\/sessions\/([^/]+)\/(events|ws)$/

const cache = new WeakMap<Env, Authenticator>()

/** The isolate's authenticator for these bindings, built once. */
export function authenticatorFor(env: Env): Authenticator {
  let authenticator = cache.get(env)
  if (!authenticator) {
    authenticator = new Authenticator(authConfigOf(env as unknown as Record<string, unknown>))
    cache.set(env, authenticator)
  }
  return authenticator
}

/**
 * @example
 * app.use('/v1/*', authenticate({ open: ['/v1/openapi.json', '/v1/docs'] }))
 */
export function authenticate(options: { open: string[] }): MiddlewareHandler<AppEnv> {
  const open = new Set(options.open.filter((path) => !path.includes('{')))
  // An open route with a path parameter (`/v1/hooks/{id}`): one segment in its place.
  const templated = options.open.filter((path) => path.includes('{')).map((path) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`))
  return async function authenticate(c, next) {
    if (open.has(c.req.path) || templated.some((pattern) => pattern.test(c.req.path))) return next()
    const authenticator = authenticatorFor(c.env)
    const header = c.req.header('authorization')
    const ticket = c.req.query('ticket')
    const stream = STREAM_ROUTE.exec(c.req.path)
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(header)
      if (!match) throw new NeuronError('TOKEN_MALFORMED', 'Authorization must be "Bearer <token>"', { status: 401 })
      // The client's address as the platform saw the connection: Cloudflare, and `wrangler dev`, set it.
      c.set('principal', await authenticator.bearer(match[1]!, c.req.header('cf-connecting-ip')))
      c.set('authExp', expOf(match[1]!))
    } else if (ticket !== undefined && stream) {
      const verified = await authenticator.ticket(ticket, decodeURIComponent(stream[1]!))
      c.set('principal', verified.principal)
      c.set('ticket', { jti: verified.jti, exp: verified.exp })
      c.set('authExp', verified.authExp)
    } else {
      throw new NeuronError('TOKEN_MISSING', 'this route needs "Authorization: Bearer <token>"', { status: 401 })
    }
    await next()
  }
}
