/**
 * Outbound grants of an installation (`backend_calls.*`): the origins its
 * backend may reach through the kernel's outbound gate. A grant is an
 * `app.grant.added` envelope and a revocation an `app.grant.revoked` one; the
 * set of granted origins is their fold. Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import { MAX_GRANTS } from '../core/limits.ts'

/** The topic grants are written to in an installation's ledger. */
export const GRANTS_TOPIC = 'app.grants'

/** A granted origin as listed. */
export interface Grant {
  origin: string
  grantedAt: string
}

/**
 * The origin (`scheme://host[:port]`) of an http(s) URL or origin; `INVALID_ORIGIN` (400) otherwise.
 *
 * @example
 * originOf('https://api.example.com/v1?q=1') // 'https://api.example.com'
 */
export function originOf(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw invalidOrigin(url)
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password) throw invalidOrigin(url)
  return parsed.origin
}

/**
 * The fold of grant envelopes into the granted origins, by origin.
 *
 * @example
 * ledger.fold(GRANTS_TOPIC, foldGrants, new Map())
 */
export function foldGrants(granted: Map<string, Grant>, envelope: Stored): Map<string, Grant> {
  const { origin } = envelope.payload as { origin: string }
  const next = new Map(granted)
  if (envelope.type === 'app.grant.added') next.set(origin, { origin, grantedAt: new Date(envelope.time).toISOString() })
  else if (envelope.type === 'app.grant.revoked') next.delete(origin)
  return next
}

/** Throws `TOO_MANY_GRANTS` (409) when one more grant would pass the limit. */
export function assertRoomForGrant(granted: Map<string, Grant>, origin: string): void {
  if (!granted.has(origin) && granted.size >= MAX_GRANTS) {
    throw new NeuronError('TOO_MANY_GRANTS', `an installation holds at most ${MAX_GRANTS} outbound grants; revoke one first`, { status: 409, details: { limit: MAX_GRANTS } })
  }
}

function invalidOrigin(url: string): NeuronError {
  return new NeuronError('INVALID_ORIGIN', `${JSON.stringify(url.slice(0, 200))} is not an http(s) origin`, { status: 400 })
}
