/**
 * Authentication settings, read from the environment once per isolate.
 *
 * | variable          | meaning                                                              |
 * | ----------------- | -------------------------------------------------------------------- |
 * | AUTH_ISSUER       | the `iss` a deployment's tokens must carry                           |
 * | AUTH_AUDIENCE     | the `aud` every token must carry                                     |
 * | AUTH_JWKS         | `{ "keys": [...] }` public keys (ES256, EdDSA, RS256), each with kid |
 * | TICKET_SECRET     | HS256 key for one-use stream tickets minted by this worker           |
 * | DEV_AUTH_SECRET   | HS256 key for local dev tokens (`npm run token`)                     |
 * | NEURON_ENV        | `development` allows dev tokens, and only on a loopback host         |
 */
import { z } from 'zod'
import { NeuronError } from '../../objects/core/errors.ts'

export const ASYMMETRIC = ['ES256', 'EdDSA', 'RS256'] as const
export const DEV_ISSUER = 'neuron-dev'
export const TICKET_AUDIENCE = 'neuron:stream-ticket'
/** The shell's access tokens, and the refresh credential they are minted from (shell-tokens.ts). */
export const SHELL_AUDIENCE = 'neuron:shell'
export const REFRESH_AUDIENCE = 'neuron:refresh'

const Jwks = z.object({
  keys: z.array(z.looseObject({ kid: z.string().min(1), kty: z.string(), alg: z.enum(ASYMMETRIC).optional() })).max(64),
})

export interface AuthConfig {
  issuer: string | undefined
  audience: string
  keys: z.infer<typeof Jwks>['keys']
  ticketSecret: string | undefined
  devSecret: string | undefined
  development: boolean
}

/** Parses the settings; a malformed AUTH_JWKS is a configuration error, not a 401. */
export function authConfigOf(env: Record<string, unknown>): AuthConfig {
  const text = (name: string) => (typeof env[name] === 'string' && env[name] !== '' ? (env[name] as string) : undefined)
  let keys: AuthConfig['keys'] = []
  const jwks = text('AUTH_JWKS')
  if (jwks) {
    const parsed = Jwks.safeParse(safeJson(jwks))
    if (!parsed.success) throw new NeuronError('AUTH_MISCONFIGURED', 'AUTH_JWKS is not a JWK set with a kid on every key', { status: 500 })
    keys = parsed.data.keys
  }
  return {
    issuer: text('AUTH_ISSUER'),
    audience: text('AUTH_AUDIENCE') ?? 'neuron',
    keys,
    ticketSecret: text('TICKET_SECRET'),
    devSecret: text('DEV_AUTH_SECRET'),
    development: text('NEURON_ENV') === 'development',
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
