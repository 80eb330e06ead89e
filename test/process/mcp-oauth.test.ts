/**
 * OAuth for remote MCP servers against a real `wrangler dev`. The MCP server needs OAuth: the
 * official SDK's authorization server parts (`mcpAuthRouter` with an in-memory provider that
 * approves at once, `requireBearerAuth` on the MCP endpoint; test/support/mcp-oauth-server.ts)
 * run on loopback. A principal lists the server, sees it needs authorization, starts it, the test
 * follows the authorization URL with fetch (the provider redirects straight to Neuron's callback),
 * and a session's model calls the tool with the stored token. Then: refresh before use and on a
 * 401 (collapsed to one), a refused refresh back to "needs authorization", refused states,
 * principals kept apart, revocation, and no token in any answer, the config or the ledger.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT, runCli } from '../support/cli.ts'
import { type OAuthStats, startOAuthMcpServer, type TestOAuthMcpServer } from '../support/mcp-oauth-server.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

type Event = { seq: number; type: string; payload: Record<string, unknown> }

describe('OAuth for MCP servers (real wrangler dev)', () => {
  let dev: Wrangler
  let oauth: TestOAuthMcpServer
  const tokens: Record<string, string> = {}
  /** Every body any route answered in this file: no token may be in one. */
  const answered: string[] = []

  async function call(who: string, path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(`${dev.url}${path}`, { ...init, headers: { authorization: `Bearer ${tokens[who]}`, 'content-type': 'application/json' } })
    const text = await res.text()
    answered.push(text)
    return new Response(text, { status: res.status, headers: res.headers })
  }
  const json = async <T = Record<string, unknown>>(res: Response | Promise<Response>) => (await (await res).json()) as T
  const history = async (who: string, id: string) => (await json<{ items: Event[] }>(call(who, `/v1/sessions/${id}/history?limit=1000`))).items
  async function settle(who: string, id: string): Promise<Event[]> {
    const deadline = Date.now() + 30_000
    for (;;) {
      if ((await json(call(who, `/v1/sessions/${id}`))).status === 'idle') return history(who, id)
      if (Date.now() > deadline) throw new Error(`session ${id} still busy`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  /** Prompts and waits; the outcomes of the turn's tool calls, in order. */
  async function run(who: string, id: string, text: string): Promise<{ ok: boolean; content?: string; code?: string }[]> {
    const before = (await history(who, id)).length
    expect((await call(who, `/v1/sessions/${id}/prompt`, { method: 'POST', body: JSON.stringify({ text }) })).status).toBe(202)
    const log = (await settle(who, id)).slice(before)
    return log
      .filter((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
      .map((e) => (e.type === 'session.next.tool.succeeded' ? { ok: true, content: String(e.payload.content) } : { ok: false, code: String((e.payload.error as { code: string }).code) }))
  }
  /** Follows the authorization URL the way a browser would: the provider redirects to the callback. */
  async function follow(authorizationUrl: string): Promise<Response> {
    const res = await fetch(authorizationUrl)
    answered.push(await res.clone().text())
    return res
  }
  async function authorize(who: string, server = 'secured'): Promise<void> {
    const started = await json<{ authorizationUrl: string }>(call(who, `/v1/config/mcp/${server}/oauth`, { method: 'POST' }))
    const done = await follow(started.authorizationUrl)
    expect(await done.json()).toEqual({ server, authorized: true })
  }
  const stats = async () => json<OAuthStats>(fetch(`${oauth.url}/__stats`))

  beforeAll(async () => {
    oauth = await startOAuthMcpServer()
    dev = await startWrangler({ vars: { CREDENTIALS_SECRET: 'process-test-credentials-secret-0123' } })
    for (const who of ['ada', 'bob']) tokens[who] = await devToken(`oauth-${who}`)
    for (const who of ['ada', 'bob']) {
      expect((await call(who, '/v1/config', { method: 'PUT', body: JSON.stringify({ mcpServers: [{ name: 'secured', url: `${oauth.url}/mcp`, timeoutMs: 5000 }], permission: { rules: [{ source: 'mcp:*', action: 'allow' }] } }) })).status).toBe(200)
    }
  })
  afterAll(async () => {
    await dev?.stop()
    await oauth?.close()
  })

  it('before authorization: the session lists the server as MCP_AUTH_REQUIRED, and the turn settles', async () => {
    expect((await call('ada', '/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'oauth-before' }) })).status).toBe(201)
    const outcomes = await run('ada', 'oauth-before', '/tool mcp.secured.whoami {}')
    expect(outcomes).toEqual([{ ok: false, code: 'TOOL_NOT_FOUND' }])
    const { items } = await json<{ items: { name: string; tools: string[]; error: { code: string; details: Record<string, string> } }[] }>(call('ada', '/v1/sessions/oauth-before/mcp'))
    expect(items).toEqual([expect.objectContaining({ name: 'secured', tools: [], error: expect.objectContaining({ code: 'MCP_AUTH_REQUIRED' }) })])
    expect(items[0]!.error.details).toMatchObject({ server: 'secured', authorize: 'POST /v1/config/mcp/secured/oauth', resourceMetadata: `${oauth.url}/.well-known/oauth-protected-resource/mcp` })
    expect(await json(call('ada', '/v1/config/mcp/oauth'))).toEqual({ items: [] })
  })

  it('start → follow the authorization URL → tokens stored sealed → the model calls the tool', async () => {
    const started = await json<{ server: string; authorizationUrl: string; expiresAt: string }>(call('ada', '/v1/config/mcp/secured/oauth', { method: 'POST' }))
    const url = new URL(started.authorizationUrl)
    expect(url.origin + url.pathname).toBe(`${oauth.url}/authorize`)
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('resource')).toBe(`${oauth.url}/mcp`)
    expect(url.searchParams.get('redirect_uri')).toBe(`${dev.url}/v1/oauth/mcp/callback`)
    expect(url.searchParams.get('scope')).toBe('mcp:tools')
    expect(url.searchParams.get('state')!.length).toBeGreaterThan(40)
    expect((await stats()).registrations).toBe(1)
    expect((await json<{ items: unknown[] }>(call('ada', '/v1/config/mcp/oauth'))).items).toEqual([expect.objectContaining({ server: 'secured', authorized: false, pending: true })])

    const done = await follow(started.authorizationUrl)
    expect(done.status).toBe(200)
    expect(await done.json()).toEqual({ server: 'secured', authorized: true })
    expect((await stats()).lastResource).toBe(`${oauth.url}/mcp`)
    expect((await json<{ items: unknown[] }>(call('ada', '/v1/config/mcp/oauth'))).items).toEqual([expect.objectContaining({ server: 'secured', url: `${oauth.url}/mcp`, authorized: true, pending: false, expiresAt: expect.any(String) })])

    // The session that listed it as needing authorization lists it again at its next turn.
    const outcomes = await run('ada', 'oauth-before', '/tool mcp.secured.whoami {}\n/tool mcp.secured.echo {"text":"hi"}')
    expect(outcomes).toEqual([
      { ok: true, content: expect.stringMatching(/^Bearer at-/) },
      { ok: true, content: 'echo: hi' },
    ])
    expect((await json<{ items: { tools: string[]; error: unknown }[] }>(call('ada', '/v1/sessions/oauth-before/mcp'))).items[0]).toMatchObject({ error: null, tools: expect.arrayContaining(['mcp.secured.whoami']) })
  })

  it('a replayed, forged, replaced or missing state is refused with a code, and nothing is stored', async () => {
    const before = await json(call('bob', '/v1/config/mcp/oauth'))
    const started = await json<{ authorizationUrl: string }>(call('bob', '/v1/config/mcp/secured/oauth', { method: 'POST' }))
    const redirect = await fetch(started.authorizationUrl, { redirect: 'manual' })
    const callback = new URL(redirect.headers.get('location')!)
    const state = callback.searchParams.get('state')!
    const callbackAt = (query: Record<string, string>) => fetch(`${dev.url}/v1/oauth/mcp/callback?${new URLSearchParams(query)}`)
    const codeOf = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code })

    // Forged: altered bytes, or a state this deployment never sealed.
    const flipped = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`
    expect(await codeOf(await callbackAt({ code: 'x', state: flipped }))).toEqual({ status: 400, code: 'MCP_OAUTH_STATE_INVALID' })
    expect(await codeOf(await callbackAt({ code: 'x', state: 'abc.def' }))).toEqual({ status: 400, code: 'MCP_OAUTH_STATE_INVALID' })
    expect(await codeOf(await callbackAt({ code: 'x' }))).toEqual({ status: 400, code: 'MCP_OAUTH_STATE_INVALID' })
    // Nothing was stored by the refusals; the real state still works once.
    expect(await json(call('bob', '/v1/config/mcp/oauth'))).toMatchObject({ items: [expect.objectContaining({ authorized: false, pending: true })] })
    expect(before).toEqual({ items: [] })
    const first = await fetch(callback.href)
    expect(await first.json()).toEqual({ server: 'secured', authorized: true })
    // Replayed: the state was consumed.
    expect(await codeOf(await fetch(callback.href))).toEqual({ status: 400, code: 'MCP_OAUTH_STATE_INVALID' })
    // Replaced: a second start makes the first one's state useless.
    const a = await json<{ authorizationUrl: string }>(call('bob', '/v1/config/mcp/secured/oauth', { method: 'POST' }))
    const b = await json<{ authorizationUrl: string }>(call('bob', '/v1/config/mcp/secured/oauth', { method: 'POST' }))
    const stale = new URL((await fetch(a.authorizationUrl, { redirect: 'manual' })).headers.get('location')!)
    expect(await codeOf(await fetch(stale.href))).toEqual({ status: 400, code: 'MCP_OAUTH_STATE_INVALID' })
    expect(await (await follow(b.authorizationUrl)).json()).toEqual({ server: 'secured', authorized: true })
    // An authorization server's refusal consumes the state and stores nothing new.
    const denied = await json<{ authorizationUrl: string }>(call('bob', '/v1/config/mcp/secured/oauth', { method: 'POST' }))
    const deniedState = new URL(denied.authorizationUrl).searchParams.get('state')!
    expect(await codeOf(await callbackAt({ error: 'access_denied', state: deniedState }))).toEqual({ status: 400, code: 'MCP_OAUTH_DENIED' })
    expect(await codeOf(await callbackAt({ code: 'x', state: deniedState }))).toEqual({ status: 400, code: 'MCP_OAUTH_STATE_INVALID' })
  })

  it("a principal can neither complete into nor use another principal's authorization", async () => {
    await call('bob', '/v1/config/mcp/secured/oauth', { method: 'DELETE' })
    // Bob's state, completed by anyone, authorizes Bob only; Ada's grant stays Ada's.
    const bobs = await json<{ authorizationUrl: string }>(call('bob', '/v1/config/mcp/secured/oauth', { method: 'POST' }))
    expect(await (await follow(bobs.authorizationUrl)).json()).toEqual({ server: 'secured', authorized: true })
    expect((await call('bob', '/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'oauth-bob' }) })).status).toBe(201)
    const [adaToken] = await run('ada', 'oauth-before', '/tool mcp.secured.whoami {}')
    const [bobToken] = await run('bob', 'oauth-bob', '/tool mcp.secured.whoami {}')
    expect(adaToken!.ok && bobToken!.ok).toBe(true)
    expect(adaToken!.content).not.toBe(bobToken!.content)
    // Bob forgets his grant: his session withdraws the server's tools and lists it as needing
    // authorization again; Ada's grant is untouched.
    expect(await json(call('bob', '/v1/config/mcp/secured/oauth', { method: 'DELETE' }))).toEqual({ server: 'secured', deleted: true })
    expect(await run('bob', 'oauth-bob', '/tool mcp.secured.whoami {}')).toEqual([{ ok: false, code: 'TOOL_NOT_FOUND' }])
    expect((await json<{ items: { tools: string[]; error: { code: string } }[] }>(call('bob', '/v1/sessions/oauth-bob/mcp'))).items[0]).toMatchObject({ tools: [], error: { code: 'MCP_AUTH_REQUIRED' } })
    expect(await run('ada', 'oauth-before', '/tool mcp.secured.whoami {}')).toEqual([{ ok: true, content: adaToken!.content }])
    // Nor can Bob read Ada's session's servers.
    expect((await call('bob', '/v1/sessions/oauth-before/mcp')).status).toBe(404)
  })

  it('a token the server refuses is refreshed once, collapsed across sessions; a due token is refreshed before use', async () => {
    expect((await call('ada', '/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'oauth-second' }) })).status).toBe(201)
    await run('ada', 'oauth-second', '/tool mcp.secured.echo {"text":"warm"}')
    const before = await stats()
    await fetch(`${oauth.url}/__expire`, { method: 'POST' })
    const [one, two] = await Promise.all([run('ada', 'oauth-before', '/tool mcp.secured.echo {"text":"a"}'), run('ada', 'oauth-second', '/tool mcp.secured.echo {"text":"b"}')])
    expect([one, two]).toEqual([[{ ok: true, content: 'echo: a' }], [{ ok: true, content: 'echo: b' }]])
    const after = await stats()
    expect(after.refreshes - before.refreshes).toBe(1)
    expect(after.unauthorized - before.unauthorized).toBeGreaterThanOrEqual(1)

    // Tokens that say they live 30 s are due at once (a minute's margin): refreshed before any use, no 401.
    await fetch(`${oauth.url}/__lifetime?s=30`, { method: 'POST' })
    await authorize('ada')
    const due = await stats()
    expect(await run('ada', 'oauth-before', '/tool mcp.secured.echo {"text":"due"}')).toEqual([{ ok: true, content: 'echo: due' }])
    const used = await stats()
    expect(used.refreshes - due.refreshes).toBeGreaterThanOrEqual(1)
    expect(used.unauthorized - due.unauthorized).toBe(0)
    await fetch(`${oauth.url}/__lifetime?s=3600`, { method: 'POST' })
  })

  it('a refused refresh returns the server to "needs authorization"', async () => {
    await authorize('ada')
    expect(await run('ada', 'oauth-before', '/tool mcp.secured.echo {"text":"ok"}')).toEqual([{ ok: true, content: 'echo: ok' }])
    await fetch(`${oauth.url}/__revoke`, { method: 'POST' })
    expect(await run('ada', 'oauth-before', '/tool mcp.secured.echo {"text":"no"}')).toEqual([{ ok: false, code: 'MCP_AUTH_REQUIRED' }])
    // The refused grant is forgotten: nothing is left to list, and the session lists the server as needing authorization.
    expect(await json(call('ada', '/v1/config/mcp/oauth'))).toEqual({ items: [] })
    expect((await json<{ items: { error: { code: string } }[] }>(call('ada', '/v1/sessions/oauth-before/mcp'))).items[0]!.error.code).toBe('MCP_AUTH_REQUIRED')
    expect((await stats()).refusedRefreshes).toBeGreaterThanOrEqual(1)
  })

  it('no token or client secret is in any answer, the config document, the ledger, or the log', async () => {
    await authorize('ada')
    const issued = [...new Set((await run('ada', 'oauth-before', '/tool mcp.secured.whoami {}')).map((o) => o.content!))]
    const token = issued[0]!.replace(/^Bearer /, '')
    expect(token).toMatch(/^at-/)
    // The whoami tool echoes the header it was sent, so the session's ledger holds it as that tool's
    // result; nothing else may: no answer of the config routes, the document, or the session's listing.
    const everything = [
      await (await call('ada', '/v1/config')).text(),
      await (await call('ada', '/v1/config/mcp/oauth')).text(),
      await (await call('ada', '/v1/config/mcp')).text(),
      await (await call('ada', '/v1/sessions/oauth-second/mcp')).text(),
      JSON.stringify(await history('ada', 'oauth-second')),
    ].join('\n')
    expect(everything).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/)
    expect(answered.filter((text) => !text.includes('"session.next.tool.succeeded"') && !text.includes('"content"')).join('\n')).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/)
    expect(dev.output()).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/)
    // The refusals above (states, a refused refresh) were answers, not crashes: nothing logged as uncaught.
    expect(dev.output()).not.toMatch(/Uncaught/)
  })

  it('the CLI authorizes: it prints the URL, waits for the callback, and lists the server as authorized', async () => {
    const env = { ...process.env, NEURON_CONFIG: join(mkdtempSync(join(tmpdir(), 'neuron-cli-mcp-')), 'config.json') }
    expect((await runCli(['login', '--url', dev.url, '--token', tokens.bob!], { env })).status).toBe(0)
    const child = spawn(process.execPath, [CLI, 'mcp', 'authorize', 'secured', '--json'], { cwd: ROOT, env })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const deadline = Date.now() + 20_000
    while (!out.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    const started = JSON.parse(out.split('\n')[0]!) as { authorizationUrl: string }
    expect(await (await follow(started.authorizationUrl)).json()).toEqual({ server: 'secured', authorized: true })
    expect(await exited).toBe(0)
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ server: 'secured', authorized: true })
    const listed = await runCli(['mcp', 'list', '--json'], { env })
    expect(JSON.parse(listed.stdout)).toEqual([{ server: 'secured', url: `${oauth.url}/mcp`, headers: [], oauth: expect.objectContaining({ authorized: true, pending: false }) }])
    expect(listed.stdout + out).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/)
    const forgot = await runCli(['mcp', 'forget', 'secured', '--json'], { env })
    expect(JSON.parse(forgot.stdout)).toEqual({ server: 'secured', deleted: true })
    expect((await runCli(['mcp', 'authorize'], { env })).status).toBe(2)
  })
})
