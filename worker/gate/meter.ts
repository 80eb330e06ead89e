/**
 * The meter stage: counts every authenticated request against its principal,
 * after the response is decided and off the request path. Counts are batched
 * per isolate (see `batch.ts`) and written to each principal's MeterObject once
 * per window, not once per request.
 */
import type { MiddlewareHandler } from 'hono'
import type { RequestCount } from '../../objects/meter/meter-object.ts'
import type { Env } from '../../objects/core/env.ts'
import { settled } from '../../objects/core/rpc.ts'
import type { AppEnv } from '../env.ts'
import { batched, FLUSH_AFTER_MS } from './batch.ts'
import { principalId } from './principal.ts'

/**
 * @example
 * app.use('/v1/*', meter())
 */
export function meter(): MiddlewareHandler<AppEnv> {
  let env: Env
  const counts = batched<{ id: string; method: string; route: string; status: number }>((items) => flush(env, items), FLUSH_AFTER_MS)
  return async function meter(c, next) {
    await next()
    const principal = c.get('principal')
    if (!principal) return
    env = c.env
    counts.add({ id: principalId(principal), method: c.req.method, route: c.req.routePath, status: c.res.status }, (work) => c.executionCtx.waitUntil(work))
  }
}

async function flush(env: Env, items: { id: string; method: string; route: string; status: number }[]): Promise<void> {
  const byPrincipal = new Map<string, Map<string, RequestCount>>()
  for (const { id, method, route, status } of items) {
    const counts = byPrincipal.get(id) ?? new Map<string, RequestCount>()
    byPrincipal.set(id, counts)
    const key = `${method} ${route} ${status}`
    const entry = counts.get(key) ?? { method, route, status, count: 0 }
    entry.count++
    counts.set(key, entry)
  }
  await Promise.all(
    [...byPrincipal].map(([id, counts]) =>
      settled(env.METERS.getByName(id))
        .requests([...counts.values()])
        .catch((error: unknown) => console.error('meter: requests not counted', { id, error })),
    ),
  )
}
