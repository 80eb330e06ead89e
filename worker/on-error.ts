import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { NeuronError } from '../objects/errors.ts'
import { revive } from '../objects/rpc.ts'
import type { AppEnv } from './env.ts'

/**
 * The one error handler: every failure leaves as `{ error: { code, message, details? } }`
 * with the status its typed error carries. Unknown errors are 500 `INTERNAL` and logged.
 */
export function onError(error: Error, c: Context<AppEnv>): Response {
  const known = revive(error)
  if (known instanceof NeuronError) {
    c.set('errorCode', known.code)
    return c.json({ error: known.toJSON() }, known.status as ContentfulStatusCode)
  }
  if (known instanceof HTTPException) {
    const code = known.status === 413 ? 'PAYLOAD_TOO_LARGE' : `HTTP_${known.status}`
    return c.json({ error: { code, message: known.message || 'request failed' } }, known.status)
  }
  console.error('unhandled error', error)
  return c.json({ error: { code: 'INTERNAL', message: 'internal error' } }, 500)
}
