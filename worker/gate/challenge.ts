/**
 * The challenge stage: every 401 the gate answers says how to get a credential. RFC 6750 asks a
 * bearer-protected resource to answer 401 with `WWW-Authenticate: Bearer`; RFC 9728 adds
 * `resource_metadata`, the URL of the protected-resource metadata (worker/routes/protected-resource.ts),
 * which names the authorization server. MCP clients that sign in only with OAuth start there:
 * without it they cannot discover how to sign in at all.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../env.ts'
import { metadataUrlOf } from '../routes/protected-resource.ts'

/**
 * @example
 * app.use('/v1/*', challenge()) // outside authenticate, so its refusals get the header
 */
export function challenge(): MiddlewareHandler<AppEnv> {
  return async function challenge(c, next) {
    await next()
    if (c.res.status !== 401 || c.res.headers.has('www-authenticate')) return
    const url = new URL(c.req.url)
    // An object's own answer (a stream refused by its session) has immutable headers: copy it.
    c.res = new Response(c.res.body, c.res)
    c.res.headers.set('www-authenticate', `Bearer realm="neuron", resource_metadata="${metadataUrlOf(url.origin, url.pathname)}"`)
  }
}
