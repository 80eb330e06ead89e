import { exports } from 'cloudflare:workers'
import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import keys from '../fixtures/auth/keys.json'
import { CLOCK_SKEW_SECONDS } from '../../worker/gate/authenticator.ts'
import { AUDIENCE, DEV_SECRET, ISSUER, token } from '../support/auth.ts'

const get = (token: string | null, url = 'http://neuron/v1/me', headers: Record<string, string> = {}) =>
  exports.default.fetch(url, { headers: token === null ? headers : { ...headers, authorization: token } })

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
    ['a token issued beyond the skew leeway', 'TOKEN_NOT_YET_VALID', async () => `Bearer ${await token({ iat: CLOCK_SKEW_SECONDS + 30 })}`],
    ['a token expired 2 s ago (exp has no leeway)', 'TOKEN_EXPIRED', async () => `Bearer ${await token({ expiresIn: -2 })}`],
    ['a string exp', 'TOKEN_MALFORMED', async () => `Bearer ${await token({ raw: { exp: String(now + 600) } })}`],
    ['an exp of null', 'TOKEN_MALFORMED', async () => `Bearer ${await token({ raw: { exp: null } })}`],
    ['a string nbf', 'TOKEN_MALFORMED', async () => `Bearer ${await token({ raw: { nbf: 'soon' } })}`],
    ['an array iat', 'TOKEN_MALFORMED', async () => `Bearer ${await token({ raw: { iat: [now] } })}`],
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

  it(`forgives ${CLOCK_SKEW_SECONDS} s of clock skew on iat and nbf`, async () => {
    for (const skewed of [await token({ iat: 30 }), await token({ nbf: 30 }), await token({ iat: CLOCK_SKEW_SECONDS - 2, nbf: CLOCK_SKEW_SECONDS - 2 })]) {
      expect((await get(`Bearer ${skewed}`)).status).toBe(200)
    }
  })

  it('accepts a dev token only from a client whose own address is loopback, whatever the Host says', async () => {
    const dev = `Bearer ${await sign({ iss: 'neuron-dev', aud: AUDIENCE, sub: 'dev', exp: now + 60, claims: ['role:dev'] }, DEV_SECRET, 'HS256')}`
    const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code
    for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const res = await get(dev, 'http://neuron/v1/me', { 'cf-connecting-ip': peer })
      expect([peer, res.status]).toEqual([peer, 200])
      expect(await res.json()).toMatchObject({ id: 'neuron-dev#dev', via: 'dev', claims: ['role:dev'] })
    }
    // A remote client naming a loopback Host (or none at all) is refused, also for a token already verified.
    expect(await code(await get(dev, 'http://127.0.0.1:8787/v1/me', { 'cf-connecting-ip': '192.0.2.7' }))).toBe('DEV_TOKEN_REFUSED')
    expect(await code(await get(dev, 'http://localhost/v1/me'))).toBe('DEV_TOKEN_REFUSED')
    const wrongSecret = `Bearer ${await sign({ iss: 'neuron-dev', aud: AUDIENCE, sub: 'dev', exp: now + 60 }, 'guessed', 'HS256')}`
    expect(await code(await get(wrongSecret, 'http://neuron/v1/me', { 'cf-connecting-ip': '127.0.0.1' }))).toBe('TOKEN_SIGNATURE_INVALID')
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
