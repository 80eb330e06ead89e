/**
 * What the kernel holds for apps: connections (sealed per person and app,
 * write-only, opened only with the kernel's claim) and derived keys
 * (`vetkeys`: the same for the same person, app and path, different across
 * apps, people and paths, and delivered encrypted to the caller's transport key).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { REVEAL_CLAIM } from '../../objects/apps/connections.ts'
import { type EncryptedKey, wrappingKey } from '../../objects/apps/vetkeys.ts'
import { bearer } from '../support/auth.ts'
import { api, postJson } from '../support/api.ts'
import { COUNTER, pkg, PROBE_METHODS, PROBE_MODULE } from '../fixtures/apps/packages.ts'
import { errorOf, installed, person, send, warm } from './support.ts'

const SECRET = 'oauth-token-0123456789-very-secret'

async function reveal(app: string, name: string, as: string, claims: string[]): Promise<Response> {
  return api(`/v1/apps/installs/${app}/connections/${name}/reveal`, { method: 'POST', headers: await bearer(as, claims) }, as)
}

describe('connections', () => {
  beforeAll(() => warm(), 60_000)

  it('are write-only through the API and open only with the kernel claim, for the exact person and app', async () => {
    const ada = person('ada')
    const bob = person('bob')
    await installed(COUNTER, ada)
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    await installed(COUNTER, bob)
    const set = await send('PUT', '/v1/apps/installs/counter/connections/mail', { secret: SECRET }, ada)
    const setText = await set.text()
    expect(set.status).toBe(200)
    expect(setText).not.toContain(SECRET)
    expect(JSON.parse(setText)).toMatchObject({ name: 'mail', setAt: expect.any(String) })
    const listing = await (await api('/v1/apps/installs/counter/connections', {}, ada)).text()
    expect(JSON.parse(listing)).toEqual({ items: [{ name: 'mail', setAt: expect.any(String) }] })
    expect(listing).not.toContain(SECRET)

    // Without the kernel's claim: refused. With it: the secret, for this person and app only.
    expect(await errorOf(await reveal('counter', 'mail', ada, []))).toMatchObject({ code: 'CLAIM_REQUIRED' })
    const opened = await reveal('counter', 'mail', ada, [REVEAL_CLAIM])
    expect(opened.headers.get('cache-control')).toBe('no-store')
    expect(await opened.json()).toEqual({ name: 'mail', secret: SECRET })
    expect(await errorOf(await reveal('probe', 'mail', ada, [REVEAL_CLAIM]))).toMatchObject({ code: 'CONNECTION_NOT_FOUND' })
    expect(await errorOf(await reveal('counter', 'mail', bob, [REVEAL_CLAIM]))).toMatchObject({ code: 'CONNECTION_NOT_FOUND' })
    expect(await (await api('/v1/apps/installs/probe/connections', {}, ada)).json()).toEqual({ items: [] })

    const gone = await api('/v1/apps/installs/counter/connections/mail', { method: 'DELETE' }, ada)
    expect(await gone.json()).toEqual({ name: 'mail', deleted: true })
    expect(await errorOf(await reveal('counter', 'mail', ada, [REVEAL_CLAIM]))).toMatchObject({ code: 'CONNECTION_NOT_FOUND' })
  })

  it('bad input is coded and stores nothing', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    expect(await errorOf(await send('PUT', '/v1/apps/installs/counter/connections/mail', { secret: '' }, ada))).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await errorOf(await send('PUT', '/v1/apps/installs/counter/connections/bad%20name', { secret: SECRET }, ada))).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await errorOf(await send('PUT', '/v1/apps/installs/absent/connections/mail', { secret: SECRET }, ada))).toMatchObject({ code: 'APP_NOT_INSTALLED' })
    expect(await (await api('/v1/apps/installs/counter/connections', {}, ada)).json()).toEqual({ items: [] })
  })
})

describe('vetkeys', () => {
  beforeAll(() => warm(), 60_000)

  async function transportPair() {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair
    const jwk = (await crypto.subtle.exportKey('jwk', pair.publicKey)) as JsonWebKey
    return { privateKey: pair.privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } }
  }

  /** Derives through the API and opens the answer with the transport private key. */
  async function derive(app: string, derivationPath: string, as: string): Promise<string> {
    const { privateKey, publicJwk } = await transportPair()
    const res = await postJson(`/v1/apps/installs/${app}/vetkeys`, { derivationPath, transportPublicKey: publicJwk }, as)
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`)
    const sealed = (await res.json()) as EncryptedKey
    const ephemeral = await crypto.subtle.importKey('jwk', sealed.ephemeralPublicKey, { name: 'ECDH', namedCurve: 'P-256' }, false, [])
    const key = await wrappingKey(privateKey, ephemeral, ['decrypt'])
    const fromB64 = (text: string) => Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (ch) => ch.charCodeAt(0))
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromB64(sealed.iv), additionalData: new TextEncoder().encode(sealed.boundTo) }, key, fromB64(sealed.ciphertext))
    return [...new Uint8Array(plain)].map((b) => b.toString(16).padStart(2, '0')).join('')
  }

  it('the same person, app and path give the same key under fresh transport keys; any difference gives another', async () => {
    const ada = person('ada')
    const bob = person('bob')
    await installed(COUNTER, ada)
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    await installed(COUNTER, bob)
    const first = await derive('counter', 'notes/v1', ada)
    expect(first).toMatch(/^[0-9a-f]{64}$/)
    expect(await derive('counter', 'notes/v1', ada)).toBe(first)
    const others = [await derive('probe', 'notes/v1', ada), await derive('counter', 'notes/v2', ada), await derive('counter', 'notes/v1', bob)]
    expect(new Set([first, ...others]).size).toBe(4)
  })

  it('the ciphertext opens only with the transport private key it was sent to', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    const { publicJwk } = await transportPair()
    const other = await transportPair()
    const sealed = (await (await postJson('/v1/apps/installs/counter/vetkeys', { derivationPath: 'p', transportPublicKey: publicJwk }, ada)).json()) as EncryptedKey
    const ephemeral = await crypto.subtle.importKey('jwk', sealed.ephemeralPublicKey, { name: 'ECDH', namedCurve: 'P-256' }, false, [])
    const wrong = await wrappingKey(other.privateKey, ephemeral, ['decrypt'])
    const fromB64 = (text: string) => Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (ch) => ch.charCodeAt(0))
    await expect(crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromB64(sealed.iv), additionalData: new TextEncoder().encode(sealed.boundTo) }, wrong, fromB64(sealed.ciphertext))).rejects.toThrow()
  })

  it('bad requests are coded: a key that is not on the curve, a bad body, an app not installed', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    const offCurve = { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) }
    expect(await errorOf(await postJson('/v1/apps/installs/counter/vetkeys', { derivationPath: 'p', transportPublicKey: offCurve }, ada))).toMatchObject({ code: 'INVALID_TRANSPORT_KEY' })
    expect(await errorOf(await postJson('/v1/apps/installs/counter/vetkeys', { derivationPath: '' }, ada))).toMatchObject({ code: 'INVALID_REQUEST' })
    const { publicJwk } = await transportPair()
    expect(await errorOf(await postJson('/v1/apps/installs/absent/vetkeys', { derivationPath: 'p', transportPublicKey: publicJwk }, ada))).toMatchObject({ code: 'APP_NOT_INSTALLED' })
  })
})
