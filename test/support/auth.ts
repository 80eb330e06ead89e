/**
 * Signs test tokens with the fixture keys the worker under test trusts
 * (see auth-bindings.ts), so tests go through the real authenticate stage.
 */
import { sign } from 'hono/jwt'
import keys from '../fixtures/auth/keys.json'

export const ISSUER = 'https://issuer.test'
export const AUDIENCE = 'neuron'
export const DEV_SECRET = 'test-dev-secret-0123456789abcdef'

type Alg = 'ES256' | 'EdDSA' | 'RS256'

export interface TokenOptions {
  sub?: string
  claims?: string[]
  alg?: Alg
  iss?: string
  aud?: string
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number
  nbf?: number
  /** Seconds from now for `iat` (default 0). */
  iat?: number
  kid?: string
  /** Claims written as given, over the computed ones (e.g. a non-numeric `exp`). */
  raw?: Record<string, unknown>
}

/** A signed bearer token for `sub` (default `ada`). */
export async function token(options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const alg = options.alg ?? 'ES256'
  const key = { ...keys[alg].private, ...(options.kid ? { kid: options.kid } : {}) }
  const payload: Record<string, unknown> = {
    iss: options.iss ?? ISSUER,
    aud: options.aud ?? AUDIENCE,
    sub: options.sub ?? 'ada',
    iat: now + (options.iat ?? 0),
    exp: now + (options.expiresIn ?? 300),
    claims: options.claims ?? [],
  }
  if (options.nbf !== undefined) payload.nbf = now + options.nbf
  Object.assign(payload, options.raw)
  return sign(payload, key as never)
}

/** The principal id the worker derives for a test subject. */
export function idOf(sub: string, issuer = ISSUER): string {
  return `${issuer}#${sub}`
}

/** Authorization headers for `sub`. */
export async function bearer(sub = 'ada', claims: string[] = []): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await token({ sub, claims })}` }
}
