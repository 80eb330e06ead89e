import { exports } from 'cloudflare:workers'
import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import keys from '../fixtures/auth/keys.json'
import { AUDIENCE, DEV_SECRET, ISSUER, token } from '../support/auth.ts'

const get = (token: string | null, url = 'http://neuron/v1/me') =>
  exports.default.fetch(url, token === null ? {} : { headers: { authorization: token } })

/** A token signed by a key the worker has never seen, under a kid it trusts. */
async function forged(): Promise<string> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair
  const jwk = { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid: keys.ES256.private.kid, alg: 'ES256' }
  const now = Math.floor(Date.now() / 1000)
  return sign({ iss: ISSUER, aud: AUDIENCE, sub: 'mallory', exp: now + 300 }, jwk as never)
}

function unsigned(header: object, payload: object): string {
  const part = (v: object) => btoa(JSON.stringify(v)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
  return `${part(header)}.${part(payload)}.`
}

describe('authenticate: one mechanism, checked once at the gate', () => {
  const now = Math.floor(Date.now() / 1000)
  const table: [string, string, () => Promise<string | null>][] = [
    ['no token', 'TOKEN_MISSING', async () => null],
    ['a non-Bearer scheme', 'TOKEN_MALFORMED', async () => `Basic ${btoa('a:b')}`],
    ['garbage', 'TOKEN_MALFORMED', async () => 'Bearer not.a.jwt'],
    ['alg: none', 'TOKEN_ALG_REJECTED', async () => `Bearer ${unsigned({ alg: 'none', typ: 'JWT' }, { iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: now + 60 })}`],
    ['HS512', 'TOKEN_ALG_REJECTED', async () => `Bearer ${await sign({ iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: now + 60 }, 'secret', 'HS512')}`],
    ['an unknown kid', 'TOKEN_KID_UNKNOWN', async () => `Bearer ${await token({ kid: 'who-knows' })}`],
    ['a forged signature', 'TOKEN_SIGNATURE_INVALID', async () => `Bearer ${await forged()}`],
    ['an expired token', 'TOKEN_EXPIRED', async () => `Bearer ${await token({ expiresIn: -10 })}`],
    ['a token not valid yet', 'TOKEN_NOT_YET_VALID', async () => `Bearer ${await token({ nbf: 600 })}`],
    ['the wrong issuer', 'TOKEN_ISSUER_REJECTED', async () => `Bearer ${await token({ iss: 'https://evil.test' })}`],
    ['the wrong audience', 'TOKEN_AUDIENCE_REJECTED', async () => `Bearer ${await token({ aud: 'someone-else' })}`],
    ['an RS256 token naming an EC key', 'TOKEN_ALG_REJECTED', async () => `Bearer ${await token({ alg: 'RS256', kid: keys.ES256.private.kid })}`],
    ['a dev token off loopback', 'DEV_TOKEN_REFUSED', async () => `Bearer ${await sign({ iss: 'neuron-dev', aud: AUDIENCE, sub: 'dev', exp: now + 60 }, DEV_SECRET, 'HS256')}`],
  ]

  it.each(table)('%s → 401 %s', async (_, code, make) => {
    const res = await get(await make())
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code)
  })

  it.each(['ES256', 'EdDSA', 'RS256'] as const)('accepts %s from the configured JWKs, with its claims', async (alg) => {
    const res = await get(`Bearer ${await token({ alg, sub: `user-${alg}`, claims: ['org:acme', 'spending_limit:5000'] })}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: `${ISSUER}#user-${alg}`, issuer: ISSUER, subject: `user-${alg}`, claims: ['org:acme', 'spending_limit:5000'], via: 'bearer' })
  })

  it('accepts a dev token only on a loopback host', async () => {
    const dev = `Bearer ${await sign({ iss: 'neuron-dev', aud: AUDIENCE, sub: 'dev', exp: now + 60, claims: ['role:dev'] }, DEV_SECRET, 'HS256')}`
    const res = await get(dev, 'http://127.0.0.1:8787/v1/me')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: 'neuron-dev#dev', via: 'dev', claims: ['role:dev'] })
    const wrongSecret = `Bearer ${await sign({ iss: 'neuron-dev', aud: AUDIENCE, sub: 'dev', exp: now + 60 }, 'guessed', 'HS256')}`
    expect(((await (await get(wrongSecret, 'http://127.0.0.1/v1/me')).json()) as { error: { code: string } }).error.code).toBe('TOKEN_SIGNATURE_INVALID')
  })

  it('leaves only health and the API description open', async () => {
    expect((await exports.default.fetch('http://neuron/health')).status).toBe(200)
    expect((await exports.default.fetch('http://neuron/v1/openapi.json')).status).toBe(200)
    expect((await exports.default.fetch('http://neuron/v1/docs')).status).toBe(200)
    for (const path of ['/v1/me', '/v1/me/usage', '/v1/sessions/x', '/v1/sessions/x/events', '/v1/sessions/x/ws', '/v1/ledgers/a/head', '/v1/sessions/x/history']) {
      const res = await exports.default.fetch(`http://neuron${path}`)
      expect([path, res.status]).toEqual([path, 401])
    }
    const create = await exports.default.fetch('http://neuron/v1/sessions', { method: 'POST', body: '{}' })
    expect(create.status).toBe(401)
  })
})
