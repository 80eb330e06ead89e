import type { Header } from '../ledger/headers.ts'

/**
 * The authorize stage for owned resources: a pure decision over the resource's
 * policy and the caller's claims. The kernel gives claims no meaning of its own;
 * a policy names the claims it honours. The decision is data, recorded with the
 * envelopes it let through.
 */

/** Who may act on a resource: its owner, and holders of any claim it shares with. */
export interface AccessPolicy {
  owner: string
  share: string[]
}

/** The caller as the object sees it (serializable over RPC). */
export interface Caller {
  id: string
  claims: string[]
}

export interface Decision {
  stage: 'authorize'
  decision: 'allow' | 'deny'
  rule: 'owner' | 'shared-claim' | 'no-matching-rule'
  /** The claims the decision relied on. */
  claims: string[]
}

/**
 * @example
 * authorize({ owner: 'idp#ada', share: ['org:acme'] }, { id: 'idp#bob', claims: ['org:acme'] })
 * // { stage: 'authorize', decision: 'allow', rule: 'shared-claim', claims: ['org:acme'] }
 */
export function authorize(policy: AccessPolicy, caller: Caller): Decision {
  if (caller.id === policy.owner) return { stage: 'authorize', decision: 'allow', rule: 'owner', claims: [] }
  const shared = policy.share.filter((claim) => caller.claims.includes(claim))
  if (shared.length > 0) return { stage: 'authorize', decision: 'allow', rule: 'shared-claim', claims: shared }
  return { stage: 'authorize', decision: 'deny', rule: 'no-matching-rule', claims: [] }
}

/**
 * Headers that record who asked and why it was allowed, injected on every
 * envelope a gated call writes.
 *
 * @example
 * ledger.append({ ...draft, headers: [...draft.headers, ...gateHeaders(caller, decision)] })
 */
export function gateHeaders(caller: Caller, decision: Decision): Header[] {
  return [
    { key: 'principal', value: caller.id },
    { key: 'claims', value: [...caller.claims] },
    { key: 'authz', value: { stage: decision.stage, decision: decision.decision, rule: decision.rule, claims: [...decision.claims] } },
  ]
}
