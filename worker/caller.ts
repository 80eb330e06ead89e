import type { Context } from 'hono'
import type { Caller } from '../objects/access/authorize.ts'
import { principalId } from './gate/principal.ts'
import type { AppEnv } from './env.ts'

/**
 * The authenticated principal as objects see it: an id and its claims.
 *
 * @example
 * await stub.view(callerOf(c))
 */
export function callerOf(c: Context<AppEnv>): Caller {
  const principal = c.get('principal')
  return { id: principalId(principal), claims: principal.claims }
}
