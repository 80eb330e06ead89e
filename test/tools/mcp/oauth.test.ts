/**
 * MCP authorization inside workerd, against the official SDK's auth server parts on loopback
 * (test/support/mcp-oauth-server.ts): the sealed state (forged, altered, expired, another
 * deployment's), the grants a config object keeps (single-use state, expiry consumed with nothing
 * stored, tokens sealed and bound to their principal, refresh collapsed), and the connection's
 * authorization stage (401 → MCP_AUTH_REQUIRED naming the resource metadata; a refused token
 * refreshed once).
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, inject, it } from 'vitest'
import { McpGrants } from '../../../objects/config/mcp-grants.ts'
import { sealKey } from '../../../objects/config/credentials.ts'
import { NeuronError } from '../../../objects/core/errors.ts'
import { Ledger } from '../../../objects/ledger/ledger.ts'
import { McpConnection } from '../../../objects/tools/mcp/connection.ts'
import { Bearer } from '../../../objects/tools/mcp/oauth/bearer.ts'
import { newNonce, OAUTH_STATE_TTL_MS, openState, sealState } from '../../../objects/tools/mcp/oauth/state.ts'

const base = inject('mcpOAuthServerUrl')
const url = `${base}/mcp`
const secret = env.CREDENTIALS_SECRET
const policy = { development: true }
const redirectUri = 'http://neuron.test/v1/oauth/mcp/callback'

async function failure(promise: Promise<unknown>): Promise<NeuronError> {
  const error = await promise.then(() => null, (thrown: unknown) => thrown)
  expect(error).toBeInstanceOf(NeuronError)
  return error as NeuronError
}

/** What the auto-approving authorization server redirects to: the callback URL with code and state. */
async function approve(authorizationUrl: string): Promise<{ code: string; state: string }> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' })
  const location = new URL(res.headers.get('location')!)
  expect(location.origin + location.pathname).toBe(redirectUri)
  return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')! }
}

/** Runs `work` with grants over a config object's own ledger, on a clock the test moves. */
async function withGrants<T>(name: string, work: (grants: McpGrants, clock: { now: number }, storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  const stub = env.CONFIGS.getByName(name)
  await stub.mcpOAuthInfo()
  return runInDurableObject(stub, async (_object, state) => {
    const clock = { now: Date.now() }
    const ledger = new Ledger(state.storage)
    return work(new McpGrants({ ledger, secret, policy, now: () => clock.now }), clock, state.storage)
  })
}

describe('the OAuth state', () => {
  it('opens only as sealed here, unaltered and in time', async () => {
    const state = { principal: 'user#ada', server: 'notes', nonce: newNonce(), expiresAt: Date.now() + OAUTH_STATE_TTL_MS }
    const text = await sealState(secret, state)
    expect(await openState(secret, text)).toEqual(state)
    const [iv, body] = text.split('.') as [string, string]
    const altered = `${iv}.${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}`
    expect((await failure(openState(secret, altered))).code).toBe('MCP_OAUTH_STATE_INVALID')
    expect((await failure(openState('another-deployment-secret-0123456789', text))).code).toBe('MCP_OAUTH_STATE_INVALID')
    expect((await failure(openState(secret, text, state.expiresAt))).code).toBe('MCP_OAUTH_STATE_EXPIRED')
    for (const bad of [undefined, '', 'x', 'a.b', 'a.b.c', '%%%.%%%', 'A'.repeat(2000)]) expect((await failure(openState(secret, bad))).code).toBe('MCP_OAUTH_STATE_INVALID')
    // A value sealed with the same secret for another purpose (a stored provider key) is no state.
    const key = await sealKey(secret, '', 'anthropic', JSON.stringify({ p: 'user#ada', s: 'notes', n: 'x', e: Date.now() + 60_000 }))
    const b64url = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    expect((await failure(openState(secret, `${b64url(key.iv)}.${b64url(key.ciphertext)}`))).code).toBe('MCP_OAUTH_STATE_INVALID')
  })
})

describe('McpGrants (in a config object, against the SDK auth server)', () => {
  it('discovers, registers, sends PKCE S256 with resource and state, exchanges once, keeps tokens sealed and bound', async () => {
    await withGrants('oauth-unit-flow', async (grants, _clock, storage) => {
      const started = await grants.start('user#ada', 'secured', { url, redirectUri })
      const authorization = new URL(started.authorizationUrl)
      expect(authorization.searchParams.get('code_challenge_method')).toBe('S256')
      expect(authorization.searchParams.get('resource')).toBe(url)
      const { code, state } = await approve(started.authorizationUrl)
      const opened = await openState(secret, state)
      expect(opened).toMatchObject({ principal: 'user#ada', server: 'secured' })
      expect(await grants.complete('user#ada', 'secured', opened.nonce, { code })).toEqual({ server: 'secured', authorized: true })
      // Used once: the same state again is refused.
      expect((await failure(grants.complete('user#ada', 'secured', opened.nonce, { code }))).code).toBe('MCP_OAUTH_STATE_INVALID')
      const token = await grants.token('user#ada', 'secured', url)
      expect(token?.accessToken).toMatch(/^at-/)
      // For another URL under the same name there is no token; under another principal it does not open.
      expect(await grants.token('user#ada', 'secured', `${base}/other`)).toBeNull()
      expect((await failure(grants.token('user#bob', 'secured', url))).code).toBe('MCP_AUTH_REQUIRED')
      // Nothing in the object's ledger holds a token, a refresh token, the client secret or the verifier in clear.
      const rows = [...storage.sql.exec('SELECT * FROM log')].map((row) => JSON.stringify(row)).join('\n')
      expect(rows).toContain('config.mcp-oauth')
      expect(rows).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/)
      expect(rows).not.toContain(token!.accessToken)
      expect(JSON.stringify(grants.info())).not.toContain(token!.accessToken)
    })
  })

  it('an expired state is refused and consumed, and stores nothing', async () => {
    await withGrants('oauth-unit-expired', async (grants, clock) => {
      const started = await grants.start('user#ada', 'secured', { url, redirectUri })
      const { code, state } = await approve(started.authorizationUrl)
      const { nonce } = await openState(secret, state)
      clock.now += OAUTH_STATE_TTL_MS + 1
      expect((await failure(grants.complete('user#ada', 'secured', nonce, { code }))).code).toBe('MCP_OAUTH_STATE_EXPIRED')
      expect(grants.info()).toEqual([])
      expect(await grants.token('user#ada', 'secured', url)).toBeNull()
    })
  })

  it('refreshes a due token before handing it out; concurrent askers share one refresh', async () => {
    await withGrants('oauth-unit-refresh', async (grants, clock) => {
      const started = await grants.start('user#ada', 'secured', { url, redirectUri })
      const { code, state } = await approve(started.authorizationUrl)
      await grants.complete('user#ada', 'secured', (await openState(secret, state)).nonce, { code })
      const first = (await grants.token('user#ada', 'secured', url))!
      const before = (await (await fetch(`${base}/__stats`)).json()) as { refreshes: number }
      clock.now = first.expiresAt! // due: within the minute before expiry
      const all = await Promise.all([1, 2, 3].map(() => grants.token('user#ada', 'secured', url)))
      const after = (await (await fetch(`${base}/__stats`)).json()) as { refreshes: number }
      expect(after.refreshes - before.refreshes).toBe(1)
      expect(new Set(all.map((t) => t!.accessToken)).size).toBe(1)
      expect(all[0]!.accessToken).not.toBe(first.accessToken)
      // The refreshed token is stored: asked again, it is handed out without another refresh.
      expect((await grants.token('user#ada', 'secured', url))!.accessToken).toBe(all[0]!.accessToken)
      expect(((await (await fetch(`${base}/__stats`)).json()) as { refreshes: number }).refreshes).toBe(after.refreshes)
    })
  })

  it('registers a client once per authorization server and callback; without a deployment secret it fetches nothing', async () => {
    const registrations = async () => ((await (await fetch(`${base}/__stats`)).json()) as { registrations: number; authorizations: number }).registrations
    await withGrants('oauth-unit-client', async (grants, _clock, storage) => {
      const before = await registrations()
      const first = new URL((await grants.start('user#ada', 'secured', { url, redirectUri })).authorizationUrl)
      const second = new URL((await grants.start('user#ada', 'secured', { url, redirectUri })).authorizationUrl)
      expect(await registrations()).toBe(before + 1)
      expect(second.searchParams.get('client_id')).toBe(first.searchParams.get('client_id'))
      // A configured client is used as given, and its secret is sealed too.
      const configured = new URL((await grants.start('user#ada', 'secured', { url, redirectUri, clientId: 'issued-id', clientSecret: 'issued-secret-123' })).authorizationUrl)
      expect(configured.searchParams.get('client_id')).toBe('issued-id')
      expect(await registrations()).toBe(before + 1)
      expect([...storage.sql.exec('SELECT * FROM log')].map((row) => JSON.stringify(row)).join('\n')).not.toContain('issued-secret-123')
      const unsealed = new McpGrants({ ledger: new Ledger(storage), secret: undefined, policy })
      expect((await failure(unsealed.start('user#ada', 'other', { url, redirectUri }))).code).toBe('CREDENTIALS_NOT_CONFIGURED')
      expect(await registrations()).toBe(before + 1)
    })
  })

  it('refuses to start for a URL the outbound policy refuses, or a server without metadata', async () => {
    await withGrants('oauth-unit-refused', async (grants) => {
      expect((await failure(grants.start('user#ada', 'x', { url: 'http://10.0.0.5/mcp', redirectUri }))).code).toBe('MCP_URL_REFUSED')
      expect((await failure(grants.start('user#ada', 'x', { url: `${inject('mcpServerUrl')}/json/mcp`, redirectUri }))).code).toBe('MCP_OAUTH_DISCOVERY_FAILED')
      expect(grants.info()).toEqual([])
    })
  })
})

describe('the connection\'s authorization stage', () => {
  it('answers a 401 without a grant with MCP_AUTH_REQUIRED naming how to authorize and the resource metadata', async () => {
    const error = await failure(new McpConnection({ name: 'secured', url }, {}, policy).listTools())
    expect(error.code).toBe('MCP_AUTH_REQUIRED')
    expect(error.details).toEqual({ server: 'secured', authorize: 'POST /v1/config/mcp/secured/oauth', resourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp` })
  })

  it('sends the grant\'s token, and asks once for a fresh one when the server refuses it', async () => {
    await withGrants('oauth-unit-bearer', async (grants) => {
      const started = await grants.start('user#ada', 'secured', { url, redirectUri })
      const { code, state } = await approve(started.authorizationUrl)
      await grants.complete('user#ada', 'secured', (await openState(secret, state)).nonce, { code })
      const asked: (string | undefined)[] = []
      const bearer = new Bearer((stale) => (asked.push(stale), grants.token('user#ada', 'secured', url, stale)))
      const connection = new McpConnection({ name: 'secured', url }, {}, policy, bearer)
      expect(await connection.callTool('whoami', {}, { signal: new AbortController().signal })).toMatch(/^Bearer at-/)
      expect(asked).toEqual([undefined])
      await fetch(`${base}/__expire`, { method: 'POST' })
      const refused = (await connection.callTool('whoami', {}, { signal: new AbortController().signal })).replace('Bearer ', '')
      expect(asked).toHaveLength(2)
      expect(asked[1]).toMatch(/^at-/)
      expect(refused).not.toBe(asked[1])
      await connection.close()
      // Revoked at the server: the refresh is refused, the grant forgotten, the call coded.
      await fetch(`${base}/__revoke`, { method: 'POST' })
      const revoked = new McpConnection({ name: 'secured', url }, {}, policy, bearer)
      expect((await failure(revoked.listTools())).code).toBe('MCP_AUTH_REQUIRED')
      expect(grants.info()).toEqual([])
    })
  })
})
