/**
 * A principal's lasting shell sign-ins, kept by its ConfigObject: per sign-in (a "family" of refresh
 * credentials), the hash of the one refresh id that may be used next. Each sign-in, rotation and
 * revocation appends the family's whole state under its own topic, so the current state is the
 * topic's latest envelope (a fold over the ledger) and nothing is kept in memory.
 *
 * Rotation: every refresh hands out a new id and retires the one used. The id used just before may
 * be presented again within ROTATION_GRACE_MS (two tabs reloading at once share one cookie jar:
 * the second gets a token, not a new id, and keeps the first one's cookie); any other retired id is
 * a replay, which revokes the whole sign-in. Otherwise a refusal writes nothing.
 *
 * @example
 * issueSignIn(ledger, family, await sha256Hex(rid), expiresAt)
 * rotateSignIn(ledger, family, await sha256Hex(rid), await sha256Hex(next), Date.now()) // { rotated: true }
 */
import { NeuronError } from '../core/errors.ts'
import { REFRESH_ROTATION_GRACE_MS } from '../core/limits.ts'
import type { Json } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'

const topicOf = (family: string) => `config.sign-in:${family}`

interface SignIn {
  /** SHA-256 (hex) of the refresh id that may be used next. */
  current: string
  /** The one used before it, and when it was retired: presented again within the grace, it is no replay. */
  previous: string | null
  rotatedAt: number
  expiresAt: number
  revoked: string | null
}

const refused = (code: string, message: string) => new NeuronError(code, message, { status: 401 })

function stateOf(ledger: Ledger, family: string): SignIn | undefined {
  const latest = ledger.latest(topicOf(family))
  return latest ? (ledger.payload(latest) as unknown as SignIn) : undefined
}

function put(ledger: Ledger, family: string, state: SignIn): void {
  ledger.append({ topic: topicOf(family), type: 'config.sign-in', author: 'object:config', payload: state as unknown as Json })
}

/** Starts a sign-in whose first refresh id hashes to `current`. */
export function issueSignIn(ledger: Ledger, family: string, current: string, expiresAt: number): void {
  if (stateOf(ledger, family)) throw new NeuronError('SIGN_IN_EXISTS', 'this sign-in was already issued', { status: 409 })
  put(ledger, family, { current, previous: null, rotatedAt: 0, expiresAt, revoked: null })
}

/**
 * Uses the refresh id hashing to `presented`: when it is the current one, `next` replaces it
 * (`rotated: true`); the one retired just before, within the grace, is honoured without a
 * rotation (`rotated: false`). Refusals: REFRESH_UNKNOWN, REFRESH_REVOKED, REFRESH_EXPIRED; a
 * replay revokes the sign-in and answers `replayed: true`.
 */
export function rotateSignIn(ledger: Ledger, family: string, presented: string, next: string, now: number): { rotated: boolean; replayed?: true } {
  const state = stateOf(ledger, family)
  if (!state) throw refused('REFRESH_UNKNOWN', 'this sign-in is not known here')
  if (state.revoked) throw refused('REFRESH_REVOKED', `this sign-in was ended (${state.revoked}): sign in again`)
  if (state.expiresAt <= now) throw refused('REFRESH_EXPIRED', 'this sign-in has expired: sign in again')
  if (presented === state.current) {
    put(ledger, family, { ...state, current: next, previous: presented, rotatedAt: now })
    return { rotated: true }
  }
  if (presented === state.previous && now - state.rotatedAt <= REFRESH_ROTATION_GRACE_MS) return { rotated: false }
  // Returned, not thrown: the revocation is written, and the caller answers REFRESH_REPLAYED.
  put(ledger, family, { ...state, revoked: 'a retired refresh credential was used again' })
  return { rotated: false, replayed: true }
}

/** Ends a sign-in (sign-out); one already ended, or unknown, is no change. */
export function revokeSignIn(ledger: Ledger, family: string, why: string): { revoked: boolean } {
  const state = stateOf(ledger, family)
  if (!state || state.revoked) return { revoked: false }
  put(ledger, family, { ...state, revoked: why })
  return { revoked: true }
}
