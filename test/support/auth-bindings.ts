/**
 * Node side (vitest configs): the auth bindings the workers under test get.
 * Test-only signing keys live in test/fixtures/auth/keys.json; the worker
 * trusts their public halves, and tests sign with the private ones.
 */
import { readFileSync } from 'node:fs'

const keys = JSON.parse(readFileSync(new URL('../fixtures/auth/keys.json', import.meta.url), 'utf8')) as Record<string, { public: object }>

export const TEST_AUTH_BINDINGS = {
  AUTH_ISSUER: 'https://issuer.test',
  AUTH_AUDIENCE: 'neuron',
  AUTH_JWKS: JSON.stringify({ keys: Object.values(keys).map((pair) => pair.public) }),
  TICKET_SECRET: 'test-ticket-secret-0123456789abcdef',
  DEV_AUTH_SECRET: 'test-dev-secret-0123456789abcdef',
  NEURON_ENV: 'development',
  CREDENTIALS_SECRET: 'test-credentials-secret-0123456789abcdef',
  VETKEYS_SECRET: 'test-vetkeys-secret-0123456789abcdef',
}
