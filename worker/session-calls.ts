/**
 * The session operations the REST routes (routes/sessions.ts) and the MCP
 * tools (mcp/server.ts) share, so both reach the same objects the same way:
 * ids are checked (names under `orchestration.` are the agents' and refused),
 * only sessions the directory knows are addressed, a created session is
 * registered before its object writes and listed under its owner after. The agent profile a
 * session is created with is looked up first, so an unknown one (`UNKNOWN_AGENT`) writes nothing.
 */
import type { Caller } from '../objects/access/authorize.ts'
import type { LiveListedSession, ListingFilter, SessionListing, SessionMarks } from '../objects/directory/listing.ts'
import type { Env } from '../objects/core/env.ts'
import { settled } from '../objects/core/rpc.ts'
import { notFound } from '../objects/session/wiring/access.ts'
import { refuseReservedId } from '../objects/session/agent/agent.ts'
import type { SessionView } from '../objects/session/events/projection.ts'
import { CreateSessionSchema } from '../objects/session/intake/schemas.ts'
import { Identifier, parseOrThrow } from '../objects/core/validate.ts'
import { exists, listSession, markSession, register, sessionsOf } from '../objects/directory/keys.ts'
import type { SessionMark } from '../objects/directory/inputs.ts'
import { NeuronError } from '../objects/core/errors.ts'
import { SESSION_TITLE_LIMITS } from '../objects/core/limits.ts'
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
 * One page of the sessions `caller` owns, each with its latest title and archive state; `live` also
 * reads each listed session's status, last activity and approvals (one call per session shown, at
 * most `SESSION_TITLE_LIMITS.livePage`), and a session still untitled shows its first prompt's title.
 *
 * @example
 * await listSessions(c.env, callerOf(c), { after: 0, limit: 50, live: true }, { order: 'newest' }) // { items: [{ id: 'demo', live: { status: 'idle', … } }], next: null }
 */
export async function listSessions(env: Env, caller: Caller, page: { after?: number | undefined; limit?: number | undefined; live?: boolean }, filter: ListingFilter = {}): Promise<{ items: LiveListedSession[]; next: number | null }> {
  const listed = await sessionsOf(env, caller.id, { from: page.after, limit: page.limit }, filter)
  if (!page.live) return listed
  const shown = listed.items.slice(0, SESSION_TITLE_LIMITS.livePage)
  const items = await Promise.all(shown.map(async (item): Promise<LiveListedSession> => {
    // A session that does not answer is still listed, without its live state.
    const live = await settled(env.SESSIONS.getByName(item.id)).summary(caller).catch(() => null)
    return { ...item, title: item.title ?? live?.promptTitle ?? null, agent: item.agent ?? live?.agent, live }
  }))
  return { items, next: listed.next }
}

/**
 * What the owner's listing keeps of a session: what it was created with.
 *
 * @example
 * await listSession(env, fork.owner, { ...listingOf(fork), forkedFrom: 'origin' })
 */
export function listingOf(view: SessionView): SessionListing {
  return { id: view.id, title: view.title, model: view.model, createdAt: view.createdAt, agent: view.agent }
}

/**
 * The owner's change to a session in their listing (anyone else it is shared with: 403
 * `SESSION_LISTING_OWNER_ONLY`, nothing written); answers the listing as it is now.
 *
 * @example
 * await markOwnSession(c.env, callerOf(c), view, { title: 'Release notes' })
 */
export async function markOwnSession(env: Env, caller: Caller, view: SessionView, mark: SessionMark): Promise<SessionMarks> {
  if (view.owner !== caller.id) throw new NeuronError('SESSION_LISTING_OWNER_ONLY', 'only the owner renames or archives a session', { status: 403, details: { session: view.id } })
  const now = await markSession(env, caller.id, view.id, mark)
  return { id: view.id, title: now.title ?? view.title, archived: now.archived }
}

/** A fork carries the title its copied first prompt gives it (unless it has one). */
export async function titleFork(env: Env, caller: Caller, fork: SessionView): Promise<void> {
  if (fork.title !== null) return
  const { promptTitle } = await settled(env.SESSIONS.getByName(fork.id)).summary(caller)
  if (promptTitle) await markSession(env, fork.owner, fork.id, { promptTitle })
}
