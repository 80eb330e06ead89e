/**
 * The session delivery bench's worker (`wrangler dev` with the config `config.ts` writes; never
 * deployed): the real worker and objects, plus the bench-only `DeliveryLimitObject` behind one
 * route production does not have, `GET /__bench/limit/ws`.
 */
import * as real from '../../worker/index.ts'

export * from '../../worker/index.ts'
export { DeliveryLimitObject } from './limit-object.ts'

export default {
  fetch(request: Request, env: { DELIVERY_LIMIT: DurableObjectNamespace }, ctx: ExecutionContext): Response | Promise<Response> {
    if (new URL(request.url).pathname === '/__bench/limit/ws') return env.DELIVERY_LIMIT.getByName('limit').fetch(request)
    return real.default.fetch(request, env as never, ctx)
  },
}
