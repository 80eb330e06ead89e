/**
 * A principal's config document as its ConfigObject holds it now: what sessions, the agent
 * profiles' lookup and the routes read. Reading writes nothing (a principal who never wrote one
 * reads `{}`).
 */
import type { Env } from '../core/env.ts'
import { settled } from '../core/rpc.ts'
import type { JsonObject } from '../ledger/json.ts'

/**
 * @example
 * (await configOf(env, 'user:ada')).agents // the principal's own agent profiles, if any
 */
export async function configOf(env: Pick<Env, 'CONFIGS'>, principal: string): Promise<JsonObject> {
  return (await settled(env.CONFIGS.getByName(principal)).current()).document
}
