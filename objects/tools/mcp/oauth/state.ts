/**
 * The OAuth `state` parameter of an MCP server's authorization. The callback
 * that brings the code back cannot carry the principal's bearer token, so the
 * state itself must say whose authorization it completes: it is the
 * principal, the server, a random nonce and an expiry, sealed (AES-GCM under a
 * key derived from `CREDENTIALS_SECRET`). A forged or altered state does not
 * open; the nonce makes it unguessable, and the principal's config object keeps
 * only the nonce's hash, consumed by the first callback, so a state works once.
 */
import { NeuronError } from '../../../core/errors.ts'
import { fromBase64, openKey, sealKey, toBase64 } from '../../../config/credentials.ts'

/** How long a started authorization may wait for its callback. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000
/** The longest state accepted back (a sealed state is about 200 characters). */
const STATE_MAX_CHARS = 1024
/** Sealed states are bound to this purpose, so no other sealed value opens as one. */
const PURPOSE = 'mcp-oauth-state'

/** What a state names. */
export interface OAuthState {
  principal: string
  server: string
  nonce: string
  /** Epoch milliseconds after which the state is refused. */
  expiresAt: number
}

/**
 * A fresh, unguessable nonce (32 random bytes, base64url).
 *
 * @example
 * newNonce() // 'q0Jm…' (43 characters)
 */
export function newNonce(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)))
}

/**
 * Seals `state` into the text sent as the `state` parameter.
 *
 * @example
 * const text = await sealState(env.CREDENTIALS_SECRET, { principal: 'user#ada', server: 'notes', nonce: newNonce(), expiresAt: Date.now() + OAUTH_STATE_TTL_MS })
 */
export async function sealState(secret: string | undefined, state: OAuthState): Promise<string> {
  const sealed = await sealKey(secret, '', PURPOSE, JSON.stringify({ p: state.principal, s: state.server, n: state.nonce, e: state.expiresAt }))
  return `${toBase64Url(fromBase64(sealed.iv))}.${toBase64Url(fromBase64(sealed.ciphertext))}`
}

/**
 * Opens a state that came back to the callback: `MCP_OAUTH_STATE_INVALID` (400) when it was not
 * sealed here or was altered, `MCP_OAUTH_STATE_EXPIRED` (400) when its time is up.
 *
 * @example
 * const { principal, server, nonce } = await openState(env.CREDENTIALS_SECRET, c.req.query('state'))
 */
export async function openState(secret: string | undefined, text: string | undefined, now = Date.now()): Promise<OAuthState> {
  const parts = (text ?? '').split('.')
  if (!text || text.length > STATE_MAX_CHARS || parts.length !== 2 || !parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))) throw invalid()
  let sealed
  try {
    sealed = { iv: toBase64(fromBase64Url(parts[0]!)), ciphertext: toBase64(fromBase64Url(parts[1]!)), setAt: '' }
  } catch {
    throw invalid() // not base64 at all (a length no encoder makes)
  }
  const plain = await openKey(secret, '', PURPOSE, sealed)
  if (plain === null) throw invalid()
  const { p, s, n, e } = JSON.parse(plain) as { p: string; s: string; n: string; e: number }
  if (!(e > now)) throw new NeuronError('MCP_OAUTH_STATE_EXPIRED', `this authorization of ${s} expired; start it again`, { status: 400, details: { server: s } })
  return { principal: p, server: s, nonce: n, expiresAt: e }
}

function invalid(): NeuronError {
  return new NeuronError('MCP_OAUTH_STATE_INVALID', 'the state parameter was not issued by this deployment, or was altered', { status: 400 })
}

function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array {
  return fromBase64(text.replace(/-/g, '+').replace(/_/g, '/'))
}
