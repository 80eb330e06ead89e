/**
 * The shell notices when its authorization ends, against a real `wrangler dev`: a token that
 * expires tears down every app port, endpoint and Agent Mode grant and the session socket, and
 * the panel says why; the server fails a socket (or an SSE stream) whose token expired
 * (`TOKEN_EXPIRED`) instead of going on serving it, for a message from it and for a turn's events; any call the server refuses
 * ends the shell's sign-in; and a signed-out shell runs only the built-in demo apps, not what an
 * earlier page stored in this browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronClient, NeuronApiError } from '../../client/index.ts'
import { devToken } from '../support/wrangler.ts'
import { liveEndpoints, openShell, type Shell, trackSockets, waitForEndpoint } from './support/shell.ts'

let shell: Shell
const page = () => shell.page
const panel = () => page().locator('#agent-panel')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Seconds left of a dev token signed now with `ttl`. */
const expiresIn = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp * 1000 - Date.now()

beforeAll(async () => {
  shell = await openShell()
  await trackSockets(page())
}, 180_000)
afterAll(() => shell?.close())

describe('signed out', () => {
  it('runs the built-in demo apps only: manifests an earlier page stored in this browser are not run', async () => {
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search'])
    // What a shell that kept this browser's installs would have run on the next load.
    await page().evaluate(() => localStorage.setItem('neutron.installs.v1', JSON.stringify([{ id: 'hostile', version: '6.6.6', title: 'Stored', entries: { tile: '/fixtures/hostile/tile', background: '/fixtures/hostile/background' }, tools: [] }])))
    await page().reload()
    await page().waitForFunction(() => 'neutron' in window)
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search'])
    const apps = await page().evaluate(() => (window as any).neutron.kernel.apps().map((a: { id: string }) => a.id))
    expect(apps.sort()).toEqual(['notes', 'planner'])
    expect(await liveEndpoints(page())).not.toContain('app:hostile:background')
  }, 90_000)
})

describe('the end of a sign-in', () => {
  it('a token that expires ends every app port, endpoint, Agent Mode grant and the socket, and the shell says why', async () => {
    const token = await devToken('expiring-shell', ['scope:apps.connections.reveal'], 50)
    await panel().locator('textarea[name=token]').fill(token)
    // Not kept on this browser: the sign-in lasts as long as the pasted token (kept, it would renew from its cookie).
    await panel().locator('input[name=remember]').uncheck()
    await panel().locator('[data-action=token-sign-in]').click()
    await panel().locator('[data-action=sign-out]').waitFor({ timeout: 30_000 })
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search'])
    // The owner enables Agent Mode, and a session is open (its socket is the bridge).
    await page().evaluate(() => {
      const k = (window as any).neutron.kernel
      const answer = k.agentMode.ask({ app: 'notes', version: k.manifest('notes').version, title: 'Notes', entrypoint: 'notes_search', endpoint: 'test' })
      k.agentMode.decide(k.agentMode.pending().id, 'allow')
      return answer
    })
    await panel().locator('[data-action=new-session]').click()
    await expect.poll(() => page().evaluate(() => (window as any).neutron.panel.open?.state), { timeout: 30_000 }).toBe('live')
    const socketsBefore = await page().evaluate(() => (window as any).__sockets.filter((s: WebSocket) => s.readyState === WebSocket.OPEN).length)
    expect(socketsBefore).toBe(1)
    expect((await liveEndpoints(page())).length).toBeGreaterThan(0)

    await sleep(expiresIn(token) + 1_500)
    // Everything the token authorized is gone, and the panel says why.
    await expect.poll(() => liveEndpoints(page()), { timeout: 10_000 }).toEqual([])
    expect(await page().evaluate(() => (window as any).neutron.kernel.apps().length)).toBe(0)
    expect(await page().evaluate(() => (window as any).neutron.kernel.agentMode.enabled().length)).toBe(0)
    expect(await page().evaluate(() => !!(window as any).neutron.panel.connection)).toBe(false)
    await expect.poll(() => page().evaluate(() => (window as any).__sockets.filter((s: WebSocket) => s.readyState !== WebSocket.CLOSED).length)).toBe(0)
    await expect.poll(() => panel().locator('[role=alert]').textContent()).toMatch(/expired/i)
    expect(await panel().locator('[data-action=dev-sign-in]').isVisible()).toBe(true)
    expect(await page().evaluate(() => localStorage.getItem('neuron.shell.signed-in'))).toBeNull()
  }, 150_000)

  it('the server fails a socket whose token expired, for its own message and for the events of a turn, with TOKEN_EXPIRED', async () => {
    const short = await devToken('expiring-socket', [], 8)
    const long = await devToken('expiring-socket', [], 600)
    const expiring = new NeuronClient({ url: shell.dev.url, token: short })
    const other = new NeuronClient({ url: shell.dev.url, token: long })
    const { id } = await other.createSession({ title: 'expiring' })
    const run = (client: NeuronClient) => {
      const socket = client.socket(id)
      const seen = { events: 0, after: 0, failure: undefined as unknown, expiredAt: 0 }
      void (async () => {
        try {
          for await (const frame of socket.frames()) if (frame.kind === 'event') (seen.events++, seen.expiredAt && seen.after++)
        } catch (error) {
          seen.failure = error
        }
      })()
      return { socket, seen }
    }
    const a = run(expiring)
    const b = run(expiring)
    await a.socket.open()
    await b.socket.open()
    await sleep(expiresIn(short) + 1_000)
    a.seen.expiredAt = b.seen.expiredAt = Date.now()
    // A message on a socket whose token expired is refused, and the socket ends.
    const prompt = await a.socket.prompt('after the token expired').then(() => null, (error: unknown) => error)
    expect(prompt).toBeInstanceOf(NeuronApiError)
    expect((prompt as NeuronApiError).code).toBe('TOKEN_EXPIRED')
    // A turn started by someone else: the expired socket gets no event of it, and ends.
    await other.session(id).prompt({ text: 'a turn for the other socket' })
    await expect.poll(() => (b.seen.failure as NeuronApiError | undefined)?.code, { timeout: 20_000 }).toBe('TOKEN_EXPIRED')
    await expect.poll(() => (a.seen.failure as NeuronApiError | undefined)?.code, { timeout: 20_000 }).toBe('TOKEN_EXPIRED')
    expect(b.seen.after).toBe(0)
    a.socket.close()
    b.socket.close()
  }, 60_000)

  it('an SSE stream ends with its token too: the follower is refused TOKEN_EXPIRED instead of being served on', async () => {
    const short = await devToken('expiring-sse', [], 6)
    const other = new NeuronClient({ url: shell.dev.url, token: await devToken('expiring-sse', [], 600) })
    const { id } = await other.createSession({ title: 'expiring sse' })
    const seen = { events: 0, after: 0, expired: false, failure: undefined as unknown }
    void (async () => {
      try {
        for await (const frame of new NeuronClient({ url: shell.dev.url, token: short }).session(id).events()) if (frame.kind === 'event') (seen.events++, seen.expired && seen.after++)
      } catch (error) {
        seen.failure = error
      }
    })()
    await sleep(expiresIn(short) + 1_000)
    seen.expired = true
    await other.session(id).prompt({ text: 'a turn for nobody expired' })
    await expect.poll(() => (seen.failure as NeuronApiError | undefined)?.code, { timeout: 20_000 }).toBe('TOKEN_EXPIRED')
    expect(seen.after).toBe(0)
  }, 60_000)

  it('any call the server refuses ends the sign-in, whatever the shell thought of the token (its clock, a revoked key)', async () => {
    const { Authorization } = await import('../../shell-web/agent/authorization.ts')
    const token = await devToken('refused', [], 4)
    const ended: { code: string }[] = []
    // The shell's own expiry timer is left out: only the server's answer can end it here.
    const authorization = new Authorization(token, { onEnded: (reason) => ended.push(reason), schedule: () => () => {} })
    const client = new NeuronClient({ url: shell.dev.url, token, fetch: authorization.fetch })
    await client.me()
    expect(ended).toEqual([])
    await sleep(expiresIn(token) + 1_000)
    await expect(client.me()).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' })
    expect(ended).toEqual([expect.objectContaining({ code: 'TOKEN_EXPIRED' })])
    // Ended once: later refusals do not end it again.
    await client.me().catch(() => {})
    expect(ended).toHaveLength(1)
  }, 30_000)
})
