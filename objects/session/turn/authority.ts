/**
 * Who a turn acts for, and so what its tools may reach: the authority of the principal who
 * prompted it, intersected with what the session grants. The table of resources is in
 * docs/graph.md ("Who may reach what"); this module is the rule, pure.
 *
 * Durable history only: every prompt is admitted with the principal the gate verified and its
 * claims in the `admitted` envelope's headers (never from the body). When the runner promotes
 * prompts it records on `prompted` who the loop they join acts for (`by`: the one principal all
 * of the loop's prompts came from, with the claims all of them carried, or nobody when they came
 * from several), and the projection folds it. A restart or recovery folds the same events, so a
 * turn has the same authority after it as before.
 *
 * The rule, decided once per turn as the `ToolAuthority` every tool reads:
 * - a turn acts for the owner only when every prompt of its loop came from the owner, or from the
 *   principal that created the session for the owner (an orchestration, for its agents); tools that
 *   `require: 'owner'` (MCP servers, host tools, an agent's orchestration tools) run only then;
 * - memory: a private session's memory is its owner's graph, with the claims the owner's prompts
 *   carried as scopes; a shared session's memory is its own (`session:{id}`), for every turn,
 *   the owner's too, because every share holder reads what a turn recalls and writes the history
 *   that steers it. A shared session never reaches its owner's graph or a claim's graph.
 */
import type { Caller } from '../../access/authorize.ts'
import { sessionMemory } from '../../graph/namespace.ts'
import type { Stored } from '../../ledger/envelope.ts'
import { current } from '../../ledger/headers.ts'
import type { ToolAuthority } from '../../tools/tool.ts'

/** Who the prompts of a loop came from, as `session.next.prompted` records it (plain JSON). */
export type PromptedBy = {
  /** The principal every one of them came from; null when they came from more than one, or one named none. */
  principal: string | null
  /** The claims all of them carried when the gate admitted them ([] when `principal` is null). */
  claims: string[]
}

/** The session as the rule reads it: its name, its policy, and who created it for its owner. */
export interface SessionGrant {
  name: string
  owner: string
  share: string[]
  /** The principal on the `created` event: the owner, or the orchestration that created its agent. */
  creator: string
}

const NOBODY: PromptedBy = { principal: null, claims: [] }

/**
 * Who one admitted prompt came from, read from the headers the gate wrote on it.
 *
 * @example
 * promptedBy(admitted) // { principal: 'idp#bob', claims: ['org:acme'] }
 */
export function promptedBy(admitted: Stored | undefined): PromptedBy {
  const principal = admitted ? current(admitted.headers, 'principal') : undefined
  if (typeof principal !== 'string') return NOBODY
  const claims = current(admitted!.headers, 'claims')
  return { principal, claims: Array.isArray(claims) ? claims.filter((claim): claim is string => typeof claim === 'string') : [] }
}

/**
 * Prompts of one loop together: one principal stays itself with the claims all its prompts
 * carried; two principals are nobody. `null` is a loop not yet started.
 *
 * @example
 * meet({ principal: 'idp#ada', claims: ['org:a', 'org:b'] }, { principal: 'idp#ada', claims: ['org:a'] }) // ada, ['org:a']
 * meet({ principal: 'idp#ada', claims: [] }, { principal: 'idp#bob', claims: [] })                       // nobody
 */
export function meet(loop: PromptedBy | null, prompt: PromptedBy): PromptedBy {
  if (loop === null) return prompt
  if (loop.principal === null || loop.principal !== prompt.principal) return NOBODY
  return { principal: loop.principal, claims: loop.claims.filter((claim) => prompt.claims.includes(claim)) }
}

/**
 * A promotion: the loop (`null` when it starts now) joined by the prompts promoted into it.
 *
 * @example
 * promotion(null, [ada, ada]) // ada, with the claims both carried
 * promotion(ada, [bob])       // nobody: a share holder steered the owner's running loop
 */
export function promotion(loop: PromptedBy | null, prompts: PromptedBy[]): PromptedBy {
  return prompts.reduce((joined: PromptedBy | null, prompt) => meet(joined, prompt), loop) ?? NOBODY
}

/**
 * What a turn's tools may reach. `by` is the folded `prompted.by`; when none was recorded, a
 * private session's prompts can only have come from its owner (no one else passes its policy),
 * and a shared session's are taken to be nobody's.
 *
 * @example
 * toolAuthority({ name: 's', owner: 'idp#ada', share: ['org:acme'], creator: 'idp#ada' }, { principal: 'idp#bob', claims: [] })
 * // { owner: false, memory: { id: 'session:s', claims: [] } }
 */
export function toolAuthority(session: SessionGrant, by: PromptedBy | null | undefined): ToolAuthority {
  const who = by ?? (session.share.length === 0 ? { principal: session.owner, claims: [] } : NOBODY)
  const owner = who.principal !== null && (who.principal === session.owner || who.principal === session.creator)
  if (session.share.length > 0) return { owner, memory: sessionMemory(session.name) }
  if (!owner) return { owner, memory: null }
  return { owner, memory: { id: session.owner, claims: who.principal === session.owner ? who.claims : [] } }
}

/**
 * The memory a session's context is offered (`memory.pinned`): what every turn of it may read,
 * whoever prompted — the owner's graph for a private session, its own for a shared one.
 *
 * @example
 * contextMemory({ name: 's', owner: 'idp#ada', share: [], creator: 'idp#ada' }) // { id: 'idp#ada', claims: [] }
 */
export function contextMemory(session: SessionGrant): Caller {
  return session.share.length > 0 ? sessionMemory(session.name) : { id: session.owner, claims: [] }
}
