/**
 * The session operations the REST routes (routes/sessions.ts) and the MCP
 * tools (mcp/server.ts) share, so both reach the same objects the same way:
 * ids are checked (names under `orchestration.` are the agents' and refused),
 * only sessions the directory knows are addressed, a created session is
 * registered before its object writes and listed under its owner after. The agent profile a
 * session is created with is looked up first, so an unknown one (`UNKNOWN_AGENT`) writes nothing.
 */
import type { Caller } from '../objects/access/authorize.ts'
import type { SessionListing } from '../objects/directory/listing.ts'
import type { Env } from '../objects/core/env.ts'
import { settled } from '../objects/core/rpc.ts'
import { notFound } from '../objects/session/wiring/access.ts'
import { refuseReservedId } from '../objects/session/agent/agent.ts'
import type { SessionView } from '../objects/session/events/projection.ts'
import { CreateSessionSchema } from '../objects/session/intake/schemas.ts'
import { Identifier, parseOrThrow } from '../objects/core/validate.ts'
import { exists, listSession, register, sessionsOf } from '../objects/directory/keys.ts'
import type { AgentProfile } from '../objects/agents/profile.ts'
import { resolveAgent } from '../objects/agents/resolve.ts'
import { configOf } from '../objects/config/current.ts'

/**
 * The stub of an existing session; an unknown id is `SESSION_NOT_FOUND` without addressing its object.
 *
 * @example
 * const view = await (await sessionStub(c.env, id)).view(callerOf(c))
 */
export async function sessionStub(env: Env, id: string) {
  const valid = parseOrThrow(Identifier, id, 'INVALID_SESSION_ID')
  if (!(await exists(env, `session:${valid}`))) throw notFound(valid)
  return settled(env.SESSIONS.getByName(valid))
}

/**
 * Creates a session owned by `caller` (the same request again is a no-op, a different one `SESSION_EXISTS`).
 *
 * @example
 * const { session, created } = await createSession(c.env, callerOf(c), { id: 'demo', agent: 'reviewer' }, c.get('extensions').agents)
 */
export async function createSession(env: Env, caller: Caller, body: unknown, deployment: ReadonlyMap<string, AgentProfile>): Promise<{ session: SessionView; created: boolean }> {
  // Checked here, whole (so a bad field is named by its path), then registered before the object
  // writes: a request never writes and then fails.
  const { id: requested, agent } = parseOrThrow(CreateSessionSchema, body, 'INVALID_REQUEST')
  const id = requested === undefined ? crypto.randomUUID() : refuseReservedId(requested)
  if (agent !== undefined) resolveAgent(agent, deployment, await configOf(env, caller.id))
  await register(env, `session:${id}`)
  const result = await settled(env.SESSIONS.getByName(id)).create(caller, body)
  // Listed after it exists; an exact retry lists it again, a no-op, so a crash in between heals.
  if (result.session.owner === caller.id) await listSession(env, result.session.owner, listingOf(result.session))
  return result
}

/**
 * One page of the sessions `caller` owns, oldest first.
 *
 * @example
 * await listSessions(c.env, callerOf(c), { after: 0, limit: 50 }) // { items: [{ id: 'demo', … }], next: null }
 */
export function listSessions(env: Env, caller: Caller, page: { after?: number | undefined; limit?: number | undefined }) {
  return sessionsOf(env, caller.id, page)
}

/**
 * What the owner's listing keeps of a session: what it was created with.
 *
 * @example
 * await listSession(env, fork.owner, { ...listingOf(fork), forkedFrom: 'origin' })
 */
export function listingOf(view: SessionView): SessionListing {
  return { id: view.id, title: view.title, model: view.model, createdAt: view.createdAt }
}
