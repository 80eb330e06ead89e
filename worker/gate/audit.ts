/**
 * The audit stage: one structured line per request (who, what, outcome, how
 * long), including refusals. Lines are written in batches (see `batch.ts`), one
 * log call per window, so auditing stays off the request's cost. Deployed, they
 * go to the worker's log, where an operator reads them (Workers Logs,
 * `wrangler tail`, Logpush). Under `NEURON_ENV=development` they are off unless
 * `NEURON_AUDIT=log` (`npm start -- --var NEURON_AUDIT:log`): `wrangler dev`'s
 * terminal already shows one line per request, and prints every console level.
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
  let write: ((text: string) => void) | null = null
  const lines = batched<string>((all) => write?.(all.join('\n')), FLUSH_AFTER_MS)
  return async function audit(c, next) {
    write ??= auditing(c.env) ? (text) => console.log(text) : () => {}
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

/** Whether audit lines are written: always when deployed; in development only with `NEURON_AUDIT=log`. */
export function auditing(env: { NEURON_ENV?: string; NEURON_AUDIT?: string }): boolean {
  return env.NEURON_AUDIT === 'log' || (env.NEURON_ENV !== 'development' && env.NEURON_AUDIT !== 'off')
}
