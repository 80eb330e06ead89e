/**
 * The shell's lasting sign-in, on the gate's side (docs/shell.md): two HS256 JWTs this worker
 * signs, each with its own key derived from TICKET_SECRET and its own audience, so neither can
 * stand for the other or for a stream ticket.
 *
 * - the refresh credential (`aud: neuron:refresh`): the value of an `HttpOnly` cookie sent to
 *   `/v1/auth/refresh` only; it names the principal, its sign-in (`fam`) and the one-use refresh
 *   id (`rid`) that the principal's ConfigObject holds the hash of;
 * - the shell access token (`aud: neuron:shell`): a short-lived bearer token minted from it,
 *   verified at the gate like any other (`Authenticator.bearer`), carrying the claims the sign-in
 *   was made with and nothing more.
 *
 * @example
 * const cookie = await mintRefresh(secret, principal, family, rid, exp)
 * const { principal, family, rid } = await verifyRefresh(secret, cookie)
 */
import { createHmac } from 'node:crypto'
import { sign } from 'hono/jwt'
import { REFRESH_AUDIENCE, SHELL_AUDIENCE } from './auth-config.ts'
import { claimsOf, type Principal } from './principal.ts'

/** A key for one purpose, derived from the ticket secret (never the secret itself). */
export function derivedKey(secret: string, purpose: 'refresh' | 'shell'): string {
  return createHmac('sha256', secret).update(`neuron:${purpose}`).digest('hex')
}

/** A shell access token for `principal`, expiring at `exp` (epoch seconds). */
export async function mintShellToken(secret: string, principal: Principal, now: number, exp: number): Promise<string> {
  return sign({ iss: principal.issuer, sub: principal.subject, aud: SHELL_AUDIENCE, claims: principal.claims, iat: now, exp }, derivedKey(secret, 'shell'), 'HS256')
}

/** The refresh credential of sign-in `family`, carrying its refresh id `rid`. */
export async function mintRefresh(secret: string, principal: Pick<Principal, 'issuer' | 'subject' | 'claims'>, family: string, rid: string, now: number, exp: number): Promise<string> {
  return sign({ iss: principal.issuer, sub: principal.subject, aud: REFRESH_AUDIENCE, claims: principal.claims, fam: family, rid, iat: now, exp }, derivedKey(secret, 'refresh'), 'HS256')
}

/** A refresh credential's principal, sign-in and refresh id, from its verified payload. */
export function refreshOf(payload: Record<string, unknown>): { principal: Omit<Principal, 'via'>; family: string; rid: string } | null {
  if (typeof payload.fam !== 'string' || typeof payload.rid !== 'string' || typeof payload.iss !== 'string') return null
  return { principal: { issuer: payload.iss, subject: String(payload.sub), claims: claimsOf(payload) }, family: payload.fam, rid: payload.rid }
}
