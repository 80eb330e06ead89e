/**
 * The audit stage: one structured line per request (who, what, outcome, how
 * long), including refusals. Lines are written in batches (see `batch.ts`), one
 * log call per window, so auditing stays off the request's cost.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../env.ts'
import { batched, FLUSH_AFTER_MS } from './batch.ts'
import { principalId } from './principal.ts'

/**
 * @example
 * app.use('/v1/*', audit())
 */
export function audit(): MiddlewareHandler<AppEnv> {
  const lines = batched<string>((all) => console.log(all.join('\n')), FLUSH_AFTER_MS)
  return async function audit(c, next) {
    const started = Date.now()
    await next()
    const principal = c.get('principal')
    const line = JSON.stringify({
      audit: 'request',
      at: started,
      principal: principal ? principalId(principal) : null,
      via: principal?.via ?? null,
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      ms: Date.now() - started,
      code: c.get('errorCode') ?? null,
    })
    lines.add(line, (work) => c.executionCtx.waitUntil(work))
  }
}
