/**
 * Authentication: one mechanism, a verified JWT, checked once per request at the
 * gate. Three key sources feed the same verification:
 *
 * - deployment tokens: asymmetric (ES256 / EdDSA / RS256), keys by `kid` from AUTH_JWKS
 * - local dev tokens: HS256 with DEV_AUTH_SECRET, only when NEURON_ENV=development
 *   and the client's own address (`CF-Connecting-IP`, set by Cloudflare and by
 *   `wrangler dev` from the real peer) is a loopback address. The Host header is
 *   not consulted: any client can write `Host: localhost`.
 * - stream tickets: HS256 with TICKET_SECRET, minted here for one session, 30 s, one use
 * - shell access tokens: HS256 with a key derived from TICKET_SECRET, minted here from a lasting
 *   sign-in's refresh credential (shell-tokens.ts, docs/shell.md); one minted for the dev identity
 *   is accepted only where dev tokens are
 *
 * Expiry is required; not-before, issued-at, issuer and audience are checked;
 * `alg: none`, unknown kids and any other algorithm are refused. Time claims must
 * be numbers (anything else is TOKEN_MALFORMED). `nbf` and `iat` are allowed
 * CLOCK_SKEW_SECONDS in the future, since an issuer's clock a little ahead of
 * ours would otherwise refuse fresh tokens; `exp` gets no leeway, so a token is
 * never honoured past the expiry it states.
 */
import { decode, sign, verify } from 'hono/jwt'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import type { JWTPayload } from 'hono/utils/jwt/types'
import { NeuronError } from '../../objects/core/errors.ts'
import { ASYMMETRIC, type AuthConfig, DEV_ISSUER, REFRESH_AUDIENCE, SHELL_AUDIENCE, TICKET_AUDIENCE } from './auth-config.ts'
import { claimsOf, type Principal } from './principal.ts'
import { derivedKey, mintRefresh, mintShellToken, refreshOf } from './shell-tokens.ts'
import { REFRESH_TTL_SECONDS, SHELL_TOKEN_TTL_SECONDS } from '../../objects/core/limits.ts'
import { REVEAL_CLAIM } from '../../objects/apps/connections.ts'

export const TICKET_TTL_SECONDS = 30

/** How far ahead of this clock a token's `nbf` / `iat` may be and still be accepted. */
export const CLOCK_SKEW_SECONDS = 60

/** A verified ticket: the principal it stands for, what makes it one-use, and when the token it was minted from expires. */
export interface Ticket {
  principal: Principal
  session: string
  jti: string
  exp: number
  /** The bearer token's own expiry (epoch seconds): the stream the ticket opens ends then. */
  authExp: number
}

/** Verified bearer tokens kept per isolate; an entry is honoured only until the token's own expiry. */
const VERIFIED_CAPACITY = 1024
/** A one-click dev sign-in lasts as long as `npm run token`'s default (12 hours). */
const DEV_TOKEN_TTL_SECONDS = 12 * 3600

/**
 * The one credential check. One instance per isolate (see `authenticatorFor`):
 * it keeps imported keys and verified tokens.
 */
export class Authenticator {
  private readonly keys = new Map<string, Promise<CryptoKey>>()
  private readonly verified = new Map<string, { principal: Principal; exp: number }>()

  constructor(private readonly config: AuthConfig) {}

  /**
   * `peer` is the client's address as the platform reports it (`CF-Connecting-IP`).
   *
   * @example
   * const principal = await authenticator.bearer(token, request.headers.get('cf-connecting-ip') ?? undefined)
   */
  async bearer(token: string, peer: string | undefined): Promise<Principal> {
    // The same token string, already verified: its signature cannot have changed, only its time.
    const known = this.verified.get(token)
    if (known && known.exp > Date.now() / 1000 && (known.principal.via !== 'dev' || this.devAllowed(peer))) return known.principal
    const principal = await this.verify(token, peer)
    if (this.verified.size >= VERIFIED_CAPACITY) this.verified.delete(this.verified.keys().next().value!)
    this.verified.set(token, { principal, exp: expOf(token) })
    return principal
  }

  private async verify(token: string, peer: string | undefined): Promise<Principal> {
    const header = headerOf(token)
    if (header.alg === 'HS256') return audienceOf(token) === SHELL_AUDIENCE ? this.shell(token, peer) : this.dev(token, peer)
    if (!(ASYMMETRIC as readonly string[]).includes(header.alg)) {
      throw unauthorized('TOKEN_ALG_REJECTED', `tokens signed with ${JSON.stringify(header.alg)} are not accepted`)
    }
    const key = this.config.keys.find((k) => k.kid === header.kid)
    if (!header.kid || !key) throw unauthorized('TOKEN_KID_UNKNOWN', 'the token names no known signing key (kid)')
    // The key decides the algorithm, never the token: an alg the key cannot verify is refused.
    if (KEY_TYPE[header.alg] !== key.kty || (key.alg !== undefined && key.alg !== header.alg)) {
      throw unauthorized('TOKEN_ALG_REJECTED', `key ${header.kid} does not verify ${header.alg}`)
    }
    if (!this.config.issuer) throw new NeuronError('AUTH_MISCONFIGURED', 'AUTH_ISSUER is not set', { status: 500 })
    const payload = await check(token, await this.importKey(key as HonoJsonWebKey, header.alg), header.alg, this.config.issuer, this.config.audience)
    return { issuer: String(payload.iss), subject: String(payload.sub), claims: claimsOf(payload), via: 'bearer' }
  }

  /**
   * Mints a one-use ticket for `session` on behalf of an authenticated principal, carrying the
   * expiry of the token it was minted from (`aex`): the stream it opens lives no longer.
   */
  async mintTicket(principal: Principal, session: string, authExp: number): Promise<{ ticket: string; expiresAt: number }> {
    const secret = this.requireTicketSecret()
    const now = Math.floor(Date.now() / 1000)
    const exp = Math.min(now + TICKET_TTL_SECONDS, authExp)
    const payload = { iss: principal.issuer, sub: principal.subject, aud: TICKET_AUDIENCE, claims: principal.claims, sid: session, jti: crypto.randomUUID(), iat: now, exp, aex: authExp }
    return { ticket: await sign(payload, secret, 'HS256'), expiresAt: exp * 1000 }
  }

  /** Verifies a ticket for `session`. One-use is enforced by the session, which remembers spent `jti`s. */
  async ticket(token: string, session: string): Promise<Ticket> {
    const header = headerOf(token)
    if (header.alg !== 'HS256') throw unauthorized('TOKEN_ALG_REJECTED', 'a ticket is HS256')
    const payload = await check(token, this.requireTicketSecret(), 'HS256', undefined, TICKET_AUDIENCE)
    if (payload.sid !== session) throw unauthorized('TICKET_WRONG_SESSION', 'the ticket was issued for another session')
    if (typeof payload.jti !== 'string') throw unauthorized('TOKEN_MALFORMED', 'the ticket has no jti')
    const principal: Principal = { issuer: String(payload.iss), subject: String(payload.sub), claims: claimsOf(payload), via: 'ticket' }
    const exp = Number(payload.exp)
    return { principal, session, jti: payload.jti, exp, authExp: typeof payload.aex === 'number' ? payload.aex : exp }
  }

  /**
   * The local dev identity's token, for the shell's one-click sign-in: only where dev tokens are
   * accepted at all (a local `wrangler dev` with a dev secret, a client on a loopback address).
   *
   * @example
   * const { token, expiresAt } = await authenticator.devToken(c.req.header('cf-connecting-ip'))
   */
  async devToken(peer: string | undefined): Promise<{ token: string; expiresAt: number }> {
    const { devSecret } = this.config
    if (!devSecret || !this.devAllowed(peer)) {
      throw new NeuronError('DEV_LOGIN_REFUSED', 'the local dev identity is offered only by a local `wrangler dev`, to a client on a loopback address', { status: 403 })
    }
    const now = Math.floor(Date.now() / 1000)
    const exp = now + DEV_TOKEN_TTL_SECONDS
    // The one caller is the shell's trusted page, whose kernel opens an app's connections for its live background.
    return { token: await sign({ iss: DEV_ISSUER, aud: this.config.audience, sub: 'dev', claims: [REVEAL_CLAIM], iat: now, exp }, devSecret, 'HS256'), expiresAt: exp * 1000 }
  }

  /**
   * A lasting sign-in for `principal`: its refresh credential (the cookie's value) and the refresh
   * id whose hash the principal's ConfigObject keeps.
   *
   * @example
   * const { credential, family, rid, expiresAt } = await authenticator.signIn(principal)
   */
  async signIn(principal: Principal): Promise<{ credential: string; family: string; rid: string; expiresAt: number }> {
    const now = Math.floor(Date.now() / 1000)
    const exp = now + REFRESH_TTL_SECONDS
    const family = crypto.randomUUID()
    const rid = crypto.randomUUID()
    return { credential: await mintRefresh(this.requireTicketSecret(), principal, family, rid, now, exp), family, rid, expiresAt: exp * 1000 }
  }

  /**
   * The sign-in a refresh credential names (its signature and expiry checked; whether its id is
   * still the current one is the ConfigObject's to say): 401 REFRESH_EXPIRED, REFRESH_INVALID, or
   * DEV_TOKEN_REFUSED for the dev identity off loopback.
   */
  async refreshed(credential: string, peer: string | undefined): Promise<{ principal: Principal; family: string; rid: string; expiresAt: number }> {
    let payload: JWTPayload
    try {
      if (headerOf(credential).alg !== 'HS256') throw unauthorized('TOKEN_ALG_REJECTED', 'a refresh credential is HS256')
      payload = await check(credential, derivedKey(this.requireTicketSecret(), 'refresh'), 'HS256', undefined, REFRESH_AUDIENCE)
    } catch (error) {
      if (error instanceof NeuronError && error.code === 'TOKEN_EXPIRED') throw unauthorized('REFRESH_EXPIRED', 'the sign-in has expired: sign in again')
      if (error instanceof NeuronError && error.status === 500) throw error
      throw unauthorized('REFRESH_INVALID', 'the refresh credential does not verify: sign in again', error)
    }
    const found = refreshOf(payload)
    if (!found) throw unauthorized('REFRESH_INVALID', 'the refresh credential names no sign-in')
    const via = found.principal.issuer === DEV_ISSUER ? 'dev' : 'shell'
    if (via === 'dev' && !this.devAllowed(peer)) throw unauthorized('DEV_TOKEN_REFUSED', 'the dev identity is signed in again only by a local `wrangler dev`, from a client on a loopback address')
    return { principal: { ...found.principal, via }, family: found.family, rid: found.rid, expiresAt: Number(payload.exp) * 1000 }
  }

  /** The same sign-in's refresh credential with its next refresh id (rotation), expiring when the sign-in does. */
  async reissued(signIn: { principal: Principal; family: string; expiresAt: number }, rid: string): Promise<string> {
    return mintRefresh(this.requireTicketSecret(), signIn.principal, signIn.family, rid, Math.floor(Date.now() / 1000), Math.floor(signIn.expiresAt / 1000))
  }

  /** A shell access token for a refreshed sign-in's principal (SHELL_TOKEN_TTL_SECONDS, never past the sign-in). */
  async shellToken(principal: Principal, signInExpiresAt: number): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor(Date.now() / 1000)
    const exp = Math.min(now + SHELL_TOKEN_TTL_SECONDS, Math.floor(signInExpiresAt / 1000))
    return { token: await mintShellToken(this.requireTicketSecret(), principal, now, exp), expiresAt: exp * 1000 }
  }

  private async shell(token: string, peer: string | undefined): Promise<Principal> {
    const payload = await check(token, derivedKey(this.requireTicketSecret(), 'shell'), 'HS256', undefined, SHELL_AUDIENCE)
    const issuer = String(payload.iss)
    if (issuer === DEV_ISSUER && !this.devAllowed(peer)) throw unauthorized('DEV_TOKEN_REFUSED', 'dev tokens are accepted only by a local `wrangler dev`, from a client on a loopback address')
    return { issuer, subject: String(payload.sub), claims: claimsOf(payload), via: issuer === DEV_ISSUER ? 'dev' : 'shell' }
  }

  private devAllowed(peer: string | undefined): boolean {
    return this.config.devSecret !== undefined && this.config.development && peer !== undefined && isLoopback(peer)
  }

  /** Each JWK is imported once per isolate, not once per request. */
  private importKey(jwk: HonoJsonWebKey, alg: string): Promise<CryptoKey> {
    const id = `${jwk.kid}:${alg}`
    let key = this.keys.get(id)
    if (!key) {
      key = crypto.subtle.importKey('jwk', jwk as JsonWebKey, IMPORT[alg]!, false, ['verify'])
      // A key that fails to import is a configuration error; do not remember the failure.
      key.catch(() => this.keys.delete(id))
      this.keys.set(id, key)
    }
    return key
  }

  private async dev(token: string, peer: string | undefined): Promise<Principal> {
    const { devSecret } = this.config
    if (!devSecret || !this.devAllowed(peer)) {
      throw unauthorized('DEV_TOKEN_REFUSED', 'dev tokens are accepted only by a local `wrangler dev`, from a client on a loopback address')
    }
    const payload = await check(token, devSecret, 'HS256', DEV_ISSUER, this.config.audience)
    return { issuer: DEV_ISSUER, subject: String(payload.sub), claims: claimsOf(payload), via: 'dev' }
  }

  private requireTicketSecret(): string {
    if (!this.config.ticketSecret) throw new NeuronError('AUTH_MISCONFIGURED', 'TICKET_SECRET is not set', { status: 500 })
    return this.config.ticketSecret
  }
}

/** The unverified `aud` of a token, only to choose which key verifies it (verification checks it again). */
function audienceOf(token: string): unknown {
  try {
    return (decode(token).payload as { aud?: unknown }).aud
  } catch {
    return undefined
  }
}

function headerOf(token: string): { alg: string; kid?: string } {
  try {
    const { header } = decode(token) as { header: { alg?: unknown; kid?: unknown } }
    return { alg: String(header.alg), ...(typeof header.kid === 'string' ? { kid: header.kid } : {}) }
  } catch (error) {
    throw unauthorized('TOKEN_MALFORMED', 'the token is not a JWT', error)
  }
}

/** hono's verify (signature, alg, iss, aud), then the time claims by `checkTimes`; `sub` is required. */
async function check(token: string, key: string | CryptoKey, alg: string, issuer: string | undefined, audience: string): Promise<JWTPayload> {
  let payload: JWTPayload
  try {
    payload = await verify(token, key, { alg: alg as 'HS256', aud: audience, ...(issuer ? { iss: issuer } : {}), exp: false, nbf: false, iat: false })
  } catch (error) {
    throw fromJwtError(error)
  }
  checkTimes(payload, Math.floor(Date.now() / 1000))
  if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthorized('TOKEN_MALFORMED', 'the token has no sub')
  return payload
}

/**
 * The time claims of a verified payload at `now` (seconds): each present one must be a
 * finite number; `exp` is required and strict; `nbf` / `iat` get CLOCK_SKEW_SECONDS.
 *
 * @example
 * checkTimes({ exp: now + 60, iat: now + 5 }, now) // passes: 5 s of skew is forgiven
 */
export function checkTimes(payload: Record<string, unknown>, now: number): void {
  for (const claim of ['exp', 'nbf', 'iat']) {
    const value = payload[claim]
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw unauthorized('TOKEN_MALFORMED', `the token's ${claim} is not a number of seconds`)
    }
  }
  const { exp, nbf, iat } = payload as { exp?: number; nbf?: number; iat?: number }
  if (exp === undefined) throw unauthorized('TOKEN_MALFORMED', 'the token has no exp')
  if (exp <= now) throw unauthorized('TOKEN_EXPIRED', 'the token has expired')
  if (nbf !== undefined && nbf > now + CLOCK_SKEW_SECONDS) throw unauthorized('TOKEN_NOT_YET_VALID', 'the token is not valid yet')
  if (iat !== undefined && iat > now + CLOCK_SKEW_SECONDS) throw unauthorized('TOKEN_NOT_YET_VALID', 'the token was issued in the future')
}

/** The JWK key type each accepted algorithm needs. */
const KEY_TYPE: Record<string, string> = { ES256: 'EC', EdDSA: 'OKP', RS256: 'RSA' }

const IMPORT: Record<string, SubtleCryptoImportKeyAlgorithm> = {
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  EdDSA: { name: 'Ed25519' },
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
}

/**
 * The expiry of a token already verified (epoch seconds).
 *
 * @example
 * c.set('authExp', expOf(token))
 */
export function expOf(token: string): number {
  return Number((decode(token).payload as { exp?: unknown }).exp)
}

const JWT_ERRORS: Record<string, [string, string]> = {
  JwtTokenIssuer: ['TOKEN_ISSUER_REJECTED', 'the token was issued by an untrusted issuer'],
  JwtTokenAudience: ['TOKEN_AUDIENCE_REJECTED', 'the token is meant for another audience'],
  JwtPayloadRequiresAud: ['TOKEN_AUDIENCE_REJECTED', 'the token names no audience'],
  JwtTokenSignatureMismatched: ['TOKEN_SIGNATURE_INVALID', 'the token signature does not verify'],
  JwtHeaderInvalid: ['TOKEN_ALG_REJECTED', 'the token header names no accepted algorithm'],
  JwtAlgorithmMismatch: ['TOKEN_ALG_REJECTED', 'the token algorithm does not match its key'],
}

function fromJwtError(error: unknown): NeuronError {
  const [code, message] = JWT_ERRORS[(error as Error)?.name] ?? ['TOKEN_MALFORMED', 'the token could not be verified']
  return unauthorized(code, message, error)
}

function unauthorized(code: string, message: string, cause?: unknown): NeuronError {
  return new NeuronError(code, message, { status: 401, cause })
}

/**
 * A host name that can only mean this machine: `localhost`, or a loopback address (`[::1]` as a
 * URL writes it). A browser resolves `localhost` itself, so no DNS answer can rebind it.
 *
 * @example
 * isLoopbackHost('localhost')             // true
 * isLoopbackHost('[::1]')                 // true
 * isLoopbackHost('rebind.evil.example')   // false, whatever its DNS answers
 */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase()
  return name === 'localhost' || isLoopback(name.replace(/^\[(.*)\]$/, '$1'))
}

/** An IPv4 or IPv6 loopback address (including IPv4-mapped IPv6); names such as `localhost` are not addresses. */
function isLoopback(address: string): boolean {
  const ip = address.toLowerCase().replace(/^::ffff:/, '')
  return ip === '::1' || /^127(\.\d{1,3}){3}$/.test(ip)
}
