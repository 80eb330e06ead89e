/**
 * Which graph a caller reaches, and who may use it. There is one graph per
 * principal (`principal:{id}`), one per shared claim (`claim:org:acme`), and
 * one per shared session that used memory (`session:{id}`, its own memory).
 * A caller reaches its own graph, or a claim's graph only while it holds that
 * claim; nothing names another principal's graph, so recall never crosses
 * principals. A shared session's memory is reached only as that session
 * (`sessionMemory`), which no request through the gate can be: principal ids
 * are `issuer#subject`, and session ids hold no `#`. The decision is the same
 * `authorize` stage every owned resource uses.
 */
import { type AccessPolicy, authorize, type Caller, type Decision } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'

/**
 * The graph name for a caller, in its own namespace or a claim's.
 *
 * @example
 * graphName({ id: 'idp#ada', claims: ['org:acme'] })             // 'principal:idp#ada'
 * graphName({ id: 'idp#ada', claims: ['org:acme'] }, 'org:acme') // 'claim:org:acme'
 */
export function graphName(caller: Caller, scope?: string): string {
  if (scope === undefined) return caller.id.startsWith(SESSION_MEMORY) ? caller.id : `principal:${caller.id}`
  if (!caller.claims.includes(scope)) throw claimRequired(scope)
  return `claim:${scope}`
}

const SESSION_MEMORY = 'session:'

/**
 * The caller a shared session's own memory is reached as: the session itself, owning the graph
 * named after it. It holds no claims, so no claim's graph is reached as it.
 *
 * @example
 * sessionMemory('standup')                      // { id: 'session:standup', claims: [] }
 * graphName(sessionMemory('standup'))           // 'session:standup'
 */
export function sessionMemory(session: string): Caller {
  return { id: `${SESSION_MEMORY}${session}`, claims: [] }
}

/** The access policy of a graph, read from its name. */
export function policyOf(name: string): AccessPolicy {
  if (name.startsWith('principal:')) return { owner: name.slice('principal:'.length), share: [] }
  if (name.startsWith(SESSION_MEMORY)) return { owner: name, share: [] }
  if (name.startsWith('claim:')) return { owner: '', share: [name.slice('claim:'.length)] }
  throw new NeuronError('INVALID_GRAPH', `no graph namespace in ${name}`, { status: 400, details: { name } })
}

/** Authorizes `caller` on the graph `name`, or throws `CLAIM_REQUIRED` (403) / `GRAPH_NOT_FOUND` (404, another principal's). */
export function authorizeGraph(name: string, caller: Caller): Decision {
  const policy = policyOf(name)
  const decision = authorize(policy, caller)
  if (decision.decision === 'allow') return decision
  if (policy.share[0]) throw claimRequired(policy.share[0])
  throw new NeuronError('GRAPH_NOT_FOUND', 'no such graph', { status: 404 })
}

function claimRequired(claim: string): NeuronError {
  return new NeuronError('CLAIM_REQUIRED', `this graph needs the claim ${claim}`, { status: 403, details: { claim } })
}
