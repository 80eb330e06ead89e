import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { openKey, sealKey } from '../../objects/config/credentials.ts'
import type { Env } from '../../objects/core/env.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { OwnerCatalog } from '../../objects/llm/owner-catalog.ts'
import { fakeVendor } from '../llm/fake-vendor.ts'
import { idOf } from '../support/auth.ts'
import { api, postJson } from '../support/session.ts'

const KEY = 'sk-ant-stored-0123456789abcdef'
const putKey = (provider: string, body: unknown, as: string) =>
  api(`/v1/config/credentials/${provider}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }, as)
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error

describe('stored provider credentials', () => {
  it('are write-only: the listing and the config document name the provider and time, never the key', async () => {
    const who = `cred-${crypto.randomUUID()}`
    expect(await (await api('/v1/config/credentials', {}, who)).json()).toEqual({ items: [] })
    const stored = await putKey('anthropic', { apiKey: KEY }, who)
    expect(stored.status).toBe(200)
    const storedText = await stored.text()
    expect(storedText).not.toContain(KEY)
    expect(JSON.parse(storedText)).toMatchObject({ provider: 'anthropic', setAt: expect.any(String) })
    const listing = await (await api('/v1/config/credentials', {}, who)).text()
    expect(JSON.parse(listing)).toMatchObject({ items: [{ provider: 'anthropic' }] })
    expect(listing).not.toContain(KEY)
    expect(await (await api('/v1/config', {}, who)).text()).not.toContain(KEY)
    const gone = await api('/v1/config/credentials/anthropic', { method: 'DELETE' }, who)
    expect(await gone.json()).toEqual({ provider: 'anthropic', deleted: true })
    expect(await (await api('/v1/config/credentials', {}, who)).json()).toEqual({ items: [] })
    expect(await (await api('/v1/config/credentials/anthropic', { method: 'DELETE' }, who)).json()).toEqual({ provider: 'anthropic', deleted: false })
  })

  it('bad input is a 400 with a code, and nothing is stored', async () => {
    const who = `cred-bad-${crypto.randomUUID()}`
    const table: [string, unknown, number, string][] = [
      ['anthropic', {}, 400, 'INVALID_REQUEST'],
      ['anthropic', { apiKey: '' }, 400, 'INVALID_REQUEST'],
      ['anthropic', { apiKey: 'has space' }, 400, 'INVALID_REQUEST'],
      ['anthropic', { apiKey: 42 }, 400, 'INVALID_REQUEST'],
      ['anthropic', { apiKey: 'k', extra: 1 }, 400, 'INVALID_REQUEST'],
      ['anthropic', '{not json', 400, 'INVALID_JSON'],
      ['anthropic', { apiKey: 'k'.repeat(9000) }, 413, 'PAYLOAD_TOO_LARGE'],
      ['local', { apiKey: 'k' }, 400, 'UNKNOWN_PROVIDER'],
      ['nope', { apiKey: 'k' }, 400, 'UNKNOWN_PROVIDER'],
    ]
    for (const [provider, body, status, code] of table) {
      const res = await putKey(provider, body, who)
      expect(res.status, `${provider} ${JSON.stringify(body).slice(0, 40)}`).toBe(status)
      expect((await errorOf(res)).code).toBe(code)
    }
    expect((await api('/v1/config/credentials/nope', { method: 'DELETE' }, who)).status).toBe(400)
    expect(await (await api('/v1/config/credentials', {}, who)).json()).toEqual({ items: [] })
  })

  it('a deployment without CREDENTIALS_SECRET refuses to seal, with a code', async () => {
    await expect(sealKey(undefined, 'p', 'anthropic', KEY)).rejects.toMatchObject({ code: 'CREDENTIALS_NOT_CONFIGURED', status: 503 })
  })

  it('the ciphertext opens only for the principal and provider it was sealed for, under the same secret', async () => {
    const secret = 'a-secret-of-enough-length'
    const sealed = await sealKey(secret, 'user#ada', 'anthropic', KEY)
    expect(JSON.stringify(sealed)).not.toContain(KEY)
    expect(await openKey(secret, 'user#ada', 'anthropic', sealed)).toBe(KEY)
    expect(await openKey(secret, 'user#bob', 'anthropic', sealed)).toBeNull()
    expect(await openKey(secret, 'user#ada', 'openai', sealed)).toBeNull()
    expect(await openKey('another-secret-of-length', 'user#ada', 'anthropic', sealed)).toBeNull()
  })

  it("the stored key reaches the vendor's x-api-key header for the owner's session call; the env key wins when set", async () => {
    const who = `cred-vendor-${crypto.randomUUID()}`
    const principal = idOf(who)
    expect((await putKey('anthropic', { apiKey: KEY }, who)).status).toBe(200)
    const vendor = await fakeVendor([{ fixture: 'anthropic/text.sse' }, { fixture: 'anthropic/text.sse' }])
    const vars = { ANTHROPIC_BASE_URL: `${vendor.url}/v1` }
    const owned = new OwnerCatalog({ ...env, ...vars } as unknown as Env, composeCatalog(vars))
    const request = { provider: 'anthropic', model: 'claude-sonnet-4-5', messages: [{ role: 'user' as const, content: 'hi' }] }
    for await (const _ of owned.stream(principal, request, new AbortController().signal));
    const keyed = new OwnerCatalog({ ...env, ...vars, ANTHROPIC_API_KEY: 'sk-env' } as unknown as Env, composeCatalog({ ...vars, ANTHROPIC_API_KEY: 'sk-env' }))
    for await (const _ of keyed.stream(principal, request, new AbortController().signal));
    const sent = await vendor.requests()
    expect(sent.map((r) => r.headers['x-api-key'])).toEqual([KEY, 'sk-env'])
    // Another principal has no key: its catalog leaves the provider unconfigured.
    await expect(owned.catalogFor(idOf(`${who}-other`), 'anthropic')).resolves.toMatchObject({})
    expect((await owned.catalogFor(idOf(`${who}-other`), 'anthropic')).get('anthropic', 'claude-sonnet-4-5')!.provider.enabled).toBe(false)
  })

  it('creating a session for a provider with neither key stays PROVIDER_NOT_CONFIGURED; a stored key makes it creatable, and no event carries the key', async () => {
    const who = `cred-session-${crypto.randomUUID()}`
    const refused = await postJson('/v1/sessions', { model: 'openai/gpt-5' }, who)
    expect(refused.status).toBe(400)
    expect((await errorOf(refused)).code).toBe('PROVIDER_NOT_CONFIGURED')
    expect((await putKey('openai', { apiKey: KEY }, who)).status).toBe(200)
    const created = await postJson('/v1/sessions', { model: 'openai/gpt-5' }, who)
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const history = await (await api(`/v1/sessions/${id}/history?limit=1000`, {}, who)).json() as { items: Stored[] }
    expect(history.items.length).toBeGreaterThan(0)
    expect(JSON.stringify(history)).not.toContain(KEY)
  })
})
