import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { failureOf } from '../objects/core/failure.ts'
import type { AppEnv } from './env.ts'

/**
 * The worker's error handler: every failure leaves as `{ error: { code, message, details? } }`
 * by the one rule of `failureOf` (a typed error answers with its status; anything else is
 * 500 `INTERNAL`, logged once). hono's own `HTTPException`s keep their status.
 */
export function onError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof HTTPException) {
    const code = error.status === 413 ? 'PAYLOAD_TOO_LARGE' : `HTTP_${error.status}`
    c.set('errorCode', code)
    return c.json({ error: { code, message: error.message || 'request failed' } }, error.status)
  }
  const { status, error: body } = failureOf(error, `${c.req.method} ${c.req.path}`)
  c.set('errorCode', body.code)
  return c.json({ error: body }, status as ContentfulStatusCode)
}
