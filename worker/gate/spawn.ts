/**
 * The spawn stage: spawn authority is central. Only an orchestration creates
 * agents, and it does so inside the platform, never through a route. A caller
 * holding the agent claim (`role:agent`) is refused on every route that creates
 * a session or an orchestration, with a code, before anything is written.
 */
import type { MiddlewareHandler } from 'hono'
import { NeuronError } from '../../objects/core/errors.ts'
import type { AppEnv } from '../env.ts'

/** The claim that marks an agent's credentials. */
export const AGENT_CLAIM = 'role:agent'

/**
 * @example
 * app.on('POST', ['/v1/sessions', '/v1/orchestrations'], refuseAgents())
 */
export function refuseAgents(): MiddlewareHandler<AppEnv> {
  return async function refuseAgents(c, next) {
    refuseAgentClaims(c.get('principal')?.claims ?? [])
    await next()
  }
}

/**
 * The same decision for a caller that creates a session another way (the MCP tool `session_create`).
 *
 * @example
 * refuseAgentClaims(caller.claims) // throws SPAWN_REFUSED for an agent
 */
export function refuseAgentClaims(claims: readonly string[]): void {
  if (claims.includes(AGENT_CLAIM)) {
    throw new NeuronError('SPAWN_REFUSED', 'an agent cannot create sessions or orchestrations; only an orchestration assigns agents', {
      status: 403,
      details: { claim: AGENT_CLAIM },
    })
  }
}
