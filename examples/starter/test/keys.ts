/**
 * Node side of the test: a signing key made for this run. The Worker trusts its public half
 * (`AUTH_JWKS`, as a deployment trusts its identity provider's), and the test signs bearer tokens
 * with the private half, so every request goes through Neuron's real authenticate stage.
 */
export const ISSUER = 'https://issuer.starter.test'

/** The Worker's auth bindings, and the private key (a JWK, as JSON) the test signs with. */
export async function testAuth(): Promise<Record<string, string>> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair
  const meta = { kid: 'starter-test', alg: 'ES256', use: 'sig' }
  const publicJwk = { ...(await crypto.subtle.exportKey('jwk', pair.publicKey)), ...meta }
  const privateJwk = { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), ...meta }
  return {
    AUTH_ISSUER: ISSUER,
    AUTH_JWKS: JSON.stringify({ keys: [publicJwk] }),
    TICKET_SECRET: 'starter-test-ticket-secret-0123456789',
    TEST_SIGNING_JWK: JSON.stringify(privateJwk),
  }
}
