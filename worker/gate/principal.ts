/**
 * The principal: who a request is, as established once by `authenticate`.
 * Claims are plain strings issued by trusted parties (`org:acme`,
 * `scope:sessions.write`, `spending_limit:5000`); nothing here interprets them.
 */

export interface Principal {
  issuer: string
  subject: string
  claims: string[]
  /** How it was established: a bearer JWT, a local dev token, a one-use stream ticket, or a shell access token (minted from a lasting sign-in). */
  via: 'bearer' | 'dev' | 'ticket' | 'shell'
}

/** A stable identity across requests: the issuer scopes the subject. */
export function principalId(principal: Pick<Principal, 'issuer' | 'subject'>): string {
  return `${principal.issuer}#${principal.subject}`
}

const MAX_CLAIMS = 64
const MAX_CLAIM_LENGTH = 256

/**
 * Claims from a verified JWT payload: the `claims` array, plus each space-separated
 * OAuth `scope` as `scope:<name>`. Anything else in the token is ignored.
 *
 * @example
 * claimsOf({ claims: ['org:acme'], scope: 'sessions.read sessions.write' })
 * // ['org:acme', 'scope:sessions.read', 'scope:sessions.write']
 */
export function claimsOf(payload: Record<string, unknown>): string[] {
  const claims: string[] = []
  if (Array.isArray(payload.claims)) {
    for (const claim of payload.claims) if (typeof claim === 'string') claims.push(claim)
  }
  if (typeof payload.scope === 'string') {
    for (const scope of payload.scope.split(' ')) if (scope) claims.push(`scope:${scope}`)
  }
  return [...new Set(claims)].filter((claim) => claim.length > 0 && claim.length <= MAX_CLAIM_LENGTH).slice(0, MAX_CLAIMS)
}
