/**
 * Delegation in real Chromium (`fixtures/relay`): a tile calls the relay's background, which passes
 * the tile's attachment on to a `whoami` tool. With a token from `attachments.delegate` the nested
 * call keeps the tile's provenance (one use, 10 s, this endpoint session only, ≤ 4 pending per
 * endpoint and 64 in the shell); without one it is the background's own call and says so.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditSince, fixtureState, frameOf, install, lastSeq, openShell, openTile, type Shell, waitForEndpoint } from './support/shell.ts'

const BG = 'app:relay:background'
const RELAY = { id: 'relay', version: '1.0.0', title: 'Relay', entries: { tile: '/fixtures/relay/tile', background: '/fixtures/relay/background' }, tools: ['relay', 'hold', 'whoami'] }
let shell: Shell
let tileId: string
let t: Frame
let bg: Frame

type Outcome = { ok?: any; error?: { code: string; message: string; retryAfterMs?: number } }
const call = (name: string, args: object, options: object = {}): Promise<Outcome> => t.evaluate(([n, a, o]) => (globalThis as any).relay.call(n, a, o), [name, args, options] as const)
/** Starts `hold` (mint `count` tokens, stay open) and waits until the minting is done. */
async function hold(count: number): Promise<{ done: Promise<Outcome>; minted: Outcome[]; tokens: string[] }> {
  await bg.evaluate(() => delete (globalThis as any).fixture.minted)
  const done = call('hold', { count })
  // Hidden frames get no animation frames: poll on a timer.
  await Promise.race([bg.waitForFunction(() => (globalThis as any).fixture.minted, undefined, { polling: 50 }), done.then((o) => Promise.reject(new Error(`hold ended: ${JSON.stringify(o)}`)))])
  return { done, minted: await fixtureState(bg, 'minted'), tokens: await fixtureState(bg, 'tokens') }
}
const release = async (held: { done: Promise<Outcome> }) => (await bg.evaluate(() => (globalThis as any).fixture.release()), await held.done)
const pending = (): Promise<number> => shell.page.evaluate(() => (window as any).neutron.kernel.delegations.pending())

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, RELAY)
  await waitForEndpoint(shell.page, BG, ['relay', 'hold'])
  tileId = await openTile(shell.page, 'relay')
  t = await frameOf(shell.page, tileId)
  await t.evaluate(() => (globalThis as any).relay.ready)
  await waitForEndpoint(shell.page, tileId, ['whoami'])
  bg = await frameOf(shell.page, BG)
})
afterAll(() => shell?.close())

describe('attachments.delegate', () => {
  it('is a discoverable kernel tool', async () => {
    const tools = await t.evaluate(() => (globalThis as any).relay.bus.listTools('kernel'))
    expect(tools.map((d: { name: string }) => d.name)).toContain('attachments.delegate')
  })

  it('a delegated nested call keeps the origin: the target sees it, the audit records it, the attachment passes on', async () => {
    const since = await lastSeq(shell.page)
    const out = await call('relay', { target: tileId, mode: 'delegate' }, { bytes: 4096 })
    expect(out.ok.first.ok).toEqual({ caller: { endpoint: BG, app: 'relay', origin: { endpoint: tileId, app: 'relay' } }, bytes: 4096 })
    const nested = (await auditSince(shell.page, since)).find((e: any) => e.tool === 'whoami')
    expect(nested).toMatchObject({ caller: BG, status: 'ok', provenance: 'delegated', origin: tileId })
    expect(await pending()).toBe(0)
  })

  it('without a token the nested call is attributed to the intermediate endpoint and says so', async () => {
    const since = await lastSeq(shell.page)
    const out = await call('relay', { target: tileId, mode: 'plain' }, { bytes: 16 })
    expect(out.ok.first.ok).toEqual({ caller: { endpoint: BG, app: 'relay', nested: true }, bytes: 16 })
    const nested = (await auditSince(shell.page, since)).find((e: any) => e.tool === 'whoami')
    expect(nested).toMatchObject({ caller: BG, provenance: 'intermediate' })
    expect(nested).not.toHaveProperty('origin')
    // A call made while answering nothing carries neither mark.
    const direct = await bg.evaluate((target) => (globalThis as any).fixture.bus.callTool({ target, name: 'whoami', arguments: {} }), tileId)
    expect(direct.caller).toEqual({ endpoint: BG, app: 'relay' })
  })

  it('a replayed token is refused with DELEGATION_INVALID, and the target never sees the replay', async () => {
    const since = await lastSeq(shell.page)
    const out = await call('relay', { target: tileId, mode: 'replay' })
    expect(out.ok.first.ok.caller.origin).toEqual({ endpoint: tileId, app: 'relay' })
    expect(out.ok.second.error).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/unknown or already used/) })
    const entries = (await auditSince(shell.page, since)).filter((e) => e.tool === 'whoami')
    expect(entries.map((e) => [e.status, e.code ?? null])).toEqual([['ok', null], ['error', 'DELEGATION_INVALID']])
  })

  it('a token used by another endpoint (wrong source) is refused and stays usable by its holder', async () => {
    const held = await hold(1)
    const [token] = held.tokens
    const stolen = await t.evaluate(([target, tok]) => (globalThis as any).relay.use(target, tok), [tileId, token!] as const)
    expect(stolen.error).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/another endpoint/) })
    const own = await bg.evaluate(([target, tok]) => (globalThis as any).fixture.use(target, tok), [tileId, token!] as const)
    expect(own.ok.caller.origin).toEqual({ endpoint: tileId, app: 'relay' })
    await release(held)
  })

  it('the 5th pending token of one endpoint is refused with DELEGATION_LIMIT and retryAfterMs; ending the invocation frees them', async () => {
    const held = await hold(5)
    expect(held.minted.slice(0, 4).every((m) => typeof m.ok === 'string')).toBe(true)
    expect(held.minted[4]!.error).toMatchObject({ code: 'DELEGATION_LIMIT', retryAfterMs: expect.any(Number) })
    expect(await pending()).toBe(4)
    await release(held)
    expect(await pending()).toBe(0)
  })

  it('the 65th pending token in the shell is refused with DELEGATION_LIMIT', async () => {
    // 62 tokens held by other endpoint sessions (minted on the trusted page), then this endpoint's 3.
    await shell.page.evaluate(() => {
      for (let i = 0; i < 62; i++) (window as any).neutron.kernel.delegations.mint({ endpoint: `app:filler:tile:t${i}:instance:${i}`, session: 1e6 + i }, { endpoint: 'x', app: 'filler' }, {})
    })
    const held = await hold(3)
    expect(held.minted.slice(0, 2).every((m) => typeof m.ok === 'string')).toBe(true)
    expect(held.minted[2]!.error).toMatchObject({ code: 'DELEGATION_LIMIT', message: expect.stringMatching(/in the shell/) })
    await release(held)
    await shell.page.evaluate(() => {
      for (let i = 0; i < 62; i++) (window as any).neutron.kernel.delegations.sessionEnded(1e6 + i)
    })
    expect(await pending()).toBe(0)
  })

  it("a token minted by a background's earlier session is refused after the background reloads (wrong session)", async () => {
    const held = await hold(1)
    const [token] = held.tokens
    const session = await shell.page.evaluate((id) => (window as any).neutron.kernel.endpoints.get(id).session, BG)
    await bg.evaluate(() => void setTimeout(() => location.reload(), 0))
    expect((await held.done).error?.code).toBe('ENDPOINT_GONE')
    await shell.page.waitForFunction(([id, old]) => (window as any).neutron.kernel.endpoints.get(id)?.session > old, [BG, session] as const)
    await waitForEndpoint(shell.page, BG, ['relay', 'hold'])
    bg = await frameOf(shell.page, BG)
    await bg.waitForFunction(() => (globalThis as any).fixture, undefined, { polling: 50 })
    const replayed = await bg.evaluate(([target, tok]) => (globalThis as any).fixture.use(target, tok), [tileId, token!] as const)
    expect(replayed.error?.code).toBe('DELEGATION_INVALID')
  })

  it('a token is refused outside an invocation the endpoint is answering', async () => {
    const out = await t.evaluate(() => (globalThis as any).relay.bus.callTool({ target: 'kernel', name: 'attachments.delegate', arguments: { invocation: 1 } }).catch((e: any) => e.toJSON()))
    expect(out).toMatchObject({ code: 'DELEGATION_INVALID' })
  })

  it('expires at 10 s in real time', async () => {
    const out = await call('relay', { target: tileId, mode: 'delegate', waitMs: 10_100 }, { timeout: 40 })
    expect(out.ok.first.error).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/expired/) })
  }, 60_000)
})
