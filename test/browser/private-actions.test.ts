/**
 * The private actions the trusted page performs (`fixtures/gestures`): tray.set_state,
 * tray.dismiss, clipboard.write_text and ethereum_provider.*, each from the wrong endpoint kind,
 * without focus or activation, with bad payloads and from another app; none is discoverable,
 * routable, or in what an app (or a model) can read of the audit. Clicks are real Playwright
 * clicks, so the page gets real transient user activation.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PageGestures, gestures } from './support/gestures.ts'
import { audit, frameOf, install, openShell, openTile, type Shell, waitForEndpoint } from './support/shell.ts'

const PAGES = { tile: '/fixtures/gestures/tile', background: '/fixtures/gestures/background' }
const GESTURES = { id: 'gestures', version: '1.0.0', title: 'Gestures', entries: { ...PAGES, tray: '/fixtures/gestures/tray' }, tools: [] }
/** Another app on the same pages, without a tray. */
const OTHER = { id: 'other', version: '1.0.0', title: 'Other', entries: PAGES, tools: [] }
const PRIVATE = ['tray.set_state', 'tray.dismiss', 'clipboard.write_text', 'ethereum_provider.connect', 'ethereum_provider.request', 'ethereum_provider.disconnect']

type Outcome = { ok?: any; error?: { code: string; message: string } }
let shell: Shell
let g: PageGestures
let tileId: string
let otherTileId: string
let tile: Frame
let otherTile: Frame
let bg: Frame
let otherBg: Frame

const raw = (frame: Frame, action: string, payload: unknown): Promise<Outcome> => frame.evaluate(([a, p]) => (globalThis as any).fixture.raw(a, p), [action, payload] as const)
/**
 * A person's click on the tile's button, sending `action`; resolves with the answer. The action is
 * posted from the trusted page (no gesture in the tile). When the last gesture was not this
 * tile's, the click waits for it to run out first: right after a gesture elsewhere the kernel
 * cannot tell a click in this tile from the tile taking focus by itself (gesture.ts).
 */
async function click(frame: Frame, action: string, payload: unknown): Promise<Outcome> {
  const id = frame === tile ? tileId : otherTileId
  const before = await frame.evaluate(() => (globalThis as any).fixture.outcomes.length)
  await g.postToFrame(id, { fixtureNext: { action, payload } })
  if ((await g.value('window.neutron.kernel.gestures.state().owner')) !== id) await g.quiet()
  await g.clickFrame(id)
  await frame.waitForFunction((n) => (globalThis as any).fixture.outcomes.length > n, before, { polling: 20 })
  return frame.evaluate(() => (globalThis as any).fixture.outcomes.at(-1))
}
/** A person's click in the tile, sending nothing. */
async function clickFrame(frame: Frame) {
  await g.quiet()
  await g.clickFrame(frame === tile ? tileId : otherTileId)
}
const badge = () => shell.page.evaluate(() => document.querySelector('.tray-button[data-app="gestures"] .badge')?.textContent ?? null)

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await shell.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shell.dev.url })
  await install(shell.page, GESTURES)
  await install(shell.page, OTHER)
  await waitForEndpoint(shell.page, 'app:gestures:background')
  await waitForEndpoint(shell.page, 'app:other:background')
  tileId = await openTile(shell.page, 'gestures')
  otherTileId = await openTile(shell.page, 'other')
  ;[tile, otherTile, bg, otherBg] = await Promise.all([frameOf(shell.page, tileId), frameOf(shell.page, otherTileId), frameOf(shell.page, 'app:gestures:background'), frameOf(shell.page, 'app:other:background')])
  await Promise.all([tile, otherTile].map((f) => f.evaluate(() => (globalThis as any).fixture.ready)))
  await tile.waitForFunction(() => (globalThis as any).fixture.port, undefined, { polling: 20 })
  await otherTile.waitForFunction(() => (globalThis as any).fixture.port, undefined, { polling: 20 })
  g = await gestures(shell.page)
})
afterAll(async () => {
  await g?.close()
  await shell?.close()
})

describe('private actions the trusted page performs', () => {
  it('clipboard and wallet need transient activation even in the focused tile: USER_ACTIVATION_REQUIRED', async () => {
    // Every Playwright evaluate counts as a gesture, so the tile sends from a timer that fires
    // after the browser's transient activation (5 s) has run out, while nothing touches the page.
    // Focus comes from the person's click (a raw one, support/gestures.ts).
    await clickFrame(tile)
    await tile.evaluate(() => (globalThis as any).fixture.later([['clipboard.write_text', { text: 'no gesture' }], ['ethereum_provider.connect', {}]], 5_600))
    // Wait through the trusted page's devtools protocol, which (unlike Playwright's evaluate) is no gesture.
    const cdp = await shell.page.context().newCDPSession(shell.page)
    const refusals = `(window.neutron.kernel.audit.list().filter((e) => e.caller === ${JSON.stringify(tileId)} && e.code === 'USER_ACTIVATION_REQUIRED').length)`
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline && (await cdp.send('Runtime.evaluate', { expression: refusals, returnByValue: true })).result.value < 2) await new Promise((r) => setTimeout(r, 200))
    await cdp.detach()
    const [focused, late] = await Promise.all([shell.page.evaluate(() => (document.activeElement as HTMLElement).dataset.endpoint), tile.evaluate(() => (globalThis as any).fixture.late)])
    expect(focused).toBe(tileId)
    expect(late).toEqual([0, 1].map(() => ({ error: { code: 'USER_ACTIVATION_REQUIRED', message: expect.stringMatching(/activation/) } })))
  }, 30_000)

  it('clipboard.write_text: a click in the focused tile writes the text through the trusted page', async () => {
    expect(await click(tile, 'clipboard.write_text', { text: 'copied by gestures ✓' })).toEqual({ ok: {} })
    expect(await shell.page.evaluate(() => navigator.clipboard.readText())).toBe('copied by gestures ✓')
  })

  it('clipboard.write_text: bad payloads are refused and nothing is written', async () => {
    expect((await click(tile, 'clipboard.write_text', { text: 'é'.repeat(128 * 1024) + 'x' })).error?.code).toBe('PAYLOAD_TOO_LARGE')
    expect((await click(tile, 'clipboard.write_text', { text: 42 })).error?.code).toBe('BAD_REQUEST')
    expect((await click(tile, 'clipboard.write_text', { text: 'x', app: 'other' })).error?.code).toBe('BAD_REQUEST')
    expect(await shell.page.evaluate(() => navigator.clipboard.readText())).toBe('copied by gestures ✓')
  })

  it('a tile that is not focused is refused even while the page has activation (another tile was clicked)', async () => {
    await clickFrame(otherTile)
    expect(await g.value('navigator.userActivation.isActive')).toBe(true)
    expect((await raw(tile, 'clipboard.write_text', { text: 'from behind' })).error).toMatchObject({ code: 'USER_ACTIVATION_REQUIRED', message: expect.stringMatching(/not the frame|not in this frame/) })
    expect((await raw(tile, 'ethereum_provider.connect', {})).error).toMatchObject({ code: 'USER_ACTIVATION_REQUIRED', message: expect.stringMatching(/not the frame|not in this frame/) })
    expect(await shell.page.evaluate(() => navigator.clipboard.readText())).toBe('copied by gestures ✓')
  })

  it('clipboard and wallet from a background or a tray: PERMISSION_DENIED', async () => {
    expect((await raw(bg, 'clipboard.write_text', { text: 'x' })).error?.code).toBe('PERMISSION_DENIED')
    expect((await raw(bg, 'ethereum_provider.connect', {})).error?.code).toBe('PERMISSION_DENIED')
    await shell.page.evaluate(() => (window as any).neutron.tray.open('gestures'))
    const trayId = await shell.page.waitForFunction(() => (window as any).neutron.kernel.endpoints.list().find((e: any) => e.kind === 'tray')?.id, undefined, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<string>)
    const tray = await frameOf(shell.page, trayId)
    await tray.evaluate(() => (globalThis as any).fixture.ready)
    expect((await raw(tray, 'clipboard.write_text', { text: 'x' })).error?.code).toBe('PERMISSION_DENIED')
    expect((await raw(tray, 'ethereum_provider.connect', {})).error?.code).toBe('PERMISSION_DENIED')
    await shell.page.evaluate(() => (window as any).neutron.tray.close())
  })

  it('tray.set_state: the background of an app with a tray sets its badge, exactly { badge } 0–9999 or null', async () => {
    expect(await raw(bg, 'tray.set_state', { badge: 7 })).toEqual({ ok: { badge: 7 } })
    await expect.poll(badge).toBe('7')
    for (const payload of [{ badge: 10_000 }, { badge: -1 }, { badge: 1.5 }, { badge: '3' }, { badge: 3, app: 'other' }, {}, null]) {
      expect((await raw(bg, 'tray.set_state', payload)).error?.code, JSON.stringify(payload)).toBe('BAD_REQUEST')
    }
    await expect.poll(badge).toBe('7')
    expect(await raw(bg, 'tray.set_state', { badge: 9_999 })).toEqual({ ok: { badge: 9_999 } })
    await expect.poll(badge).toBe('999+')
    expect(await raw(bg, 'tray.set_state', { badge: null })).toEqual({ ok: { badge: null } })
    await expect.poll(badge).toBeNull()
    await raw(bg, 'tray.set_state', { badge: 2 })
  })

  it('tray.set_state from a tile, a tray, or another app (no tray declared): PERMISSION_DENIED, badge unchanged', async () => {
    expect((await raw(tile, 'tray.set_state', { badge: 1 })).error?.code).toBe('PERMISSION_DENIED')
    expect((await click(tile, 'tray.set_state', { badge: 1 })).error?.code).toBe('PERMISSION_DENIED')
    expect((await raw(otherBg, 'tray.set_state', { badge: 1 })).error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/declares no tray/) })
    await shell.page.evaluate(() => (window as any).neutron.tray.open('gestures'))
    const trayId = await shell.page.waitForFunction(() => (window as any).neutron.kernel.endpoints.list().find((e: any) => e.kind === 'tray')?.id, undefined, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<string>)
    const tray = await frameOf(shell.page, trayId)
    await tray.evaluate(() => (globalThis as any).fixture.ready)
    expect((await raw(tray, 'tray.set_state', { badge: 1 })).error?.code).toBe('PERMISSION_DENIED')
    await expect.poll(badge).toBe('2')
    await shell.page.evaluate(() => (window as any).neutron.tray.close())
  })

  it('tray.dismiss: only the live tray endpoint, closing its own popover; exactly {}', async () => {
    expect((await raw(tile, 'tray.dismiss', {})).error?.code).toBe('PERMISSION_DENIED')
    expect((await raw(bg, 'tray.dismiss', {})).error?.code).toBe('PERMISSION_DENIED')
    await shell.page.evaluate(() => (window as any).neutron.tray.open('gestures'))
    const trayId = await shell.page.waitForFunction(() => (window as any).neutron.kernel.endpoints.list().find((e: any) => e.kind === 'tray')?.id, undefined, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<string>)
    const tray = await frameOf(shell.page, trayId)
    await tray.evaluate(() => (globalThis as any).fixture.ready)
    expect((await raw(tray, 'tray.dismiss', { close: 'other' })).error?.code).toBe('BAD_REQUEST')
    expect(await shell.page.locator('.popover').count()).toBe(1)
    expect(await raw(tray, 'tray.dismiss', {})).toEqual({ ok: {} })
    await shell.page.waitForFunction((id) => !(window as any).neutron.kernel.endpoints.get(id) && !document.querySelector('.popover'), trayId)
    expect(await shell.page.evaluate(() => (window as any).neutron.tray.openFrame)).toBeUndefined()
  })

  it('ethereum_provider.*: without an injected provider, UNAVAILABLE', async () => {
    expect((await click(tile, 'ethereum_provider.connect', {})).error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/no Ethereum provider/) })
  })

  it('ethereum_provider.*: with a fake EIP-1193 provider, a session id and bounded metadata — never the provider', async () => {
    await shell.page.evaluate(() => {
      const calls: string[] = []
      ;(window as any).walletCalls = calls
      ;(window as any).ethereum = {
        isFake: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          calls.push(method)
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return ['0x00000000000000000000000000000000000000a1']
          if (method === 'eth_chainId') return '0x1'
          if (method === 'personal_sign') throw Object.assign(new Error('User rejected the request.'), { code: 4001 })
          if (method === 'eth_call') return { when: new Date(), params }
          throw Object.assign(new Error('unsupported'), { code: 4200 })
        },
      }
    })
    const connected = await click(tile, 'ethereum_provider.connect', {})
    expect(connected.ok).toEqual({ session: expect.stringMatching(/^[0-9a-f-]{36}$/), accounts: ['0x00000000000000000000000000000000000000a1'], chainId: '0x1' })
    const session = connected.ok.session as string
    expect(await click(tile, 'ethereum_provider.request', { session, method: 'eth_chainId' })).toEqual({ ok: { result: '0x1' } })
    // The person declines in the wallet; a provider answer that is not JSON never reaches the frame.
    expect((await click(tile, 'ethereum_provider.request', { session, method: 'personal_sign', params: ['0x00', '0x01'] })).error?.code).toBe('PERMISSION_DENIED')
    expect((await click(tile, 'ethereum_provider.request', { session, method: 'eth_call', params: [] })).error?.code).toBe('PROVIDER_ERROR')
    // Bad payloads: a method apps may not use, params that are not an array, an extra key, a made-up session.
    const calls = await shell.page.evaluate(() => (window as any).walletCalls.length)
    expect((await click(tile, 'ethereum_provider.request', { session, method: 'wallet_addEthereumChain', params: [] })).error?.code).toBe('BAD_REQUEST')
    expect((await click(tile, 'ethereum_provider.request', { session, method: 'eth_chainId', params: {} })).error?.code).toBe('BAD_REQUEST')
    expect((await click(tile, 'ethereum_provider.request', { session, method: 'eth_chainId', provider: true })).error?.code).toBe('BAD_REQUEST')
    expect((await click(tile, 'ethereum_provider.request', { session: 'made-up', method: 'eth_chainId' })).error?.code).toBe('PERMISSION_DENIED')
    // Another app's focused tile cannot use this tile's session.
    expect((await click(otherTile, 'ethereum_provider.request', { session, method: 'eth_chainId' })).error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/no such wallet session/) })
    expect(await shell.page.evaluate(() => (window as any).walletCalls.length)).toBe(calls)
    expect(await click(tile, 'ethereum_provider.disconnect', { session })).toEqual({ ok: {} })
    expect((await click(tile, 'ethereum_provider.request', { session, method: 'eth_chainId' })).error?.code).toBe('PERMISSION_DENIED')
    // A session is bound to the tile session that opened it: after a reload it is gone.
    const again = (await click(tile, 'ethereum_provider.connect', {})).ok.session as string
    await tile.evaluate(() => void setTimeout(() => location.reload(), 0))
    await shell.page.waitForFunction((id) => !(window as any).neutron.kernel.endpoints.get(id), tileId)
    tileId = await shell.page.waitForFunction(() => (window as any).neutron.kernel.endpoints.list().find((e: any) => e.app === 'gestures' && e.kind === 'tile')?.id, undefined, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<string>)
    tile = await frameOf(shell.page, tileId)
    await tile.waitForFunction(() => (globalThis as any).fixture?.port, undefined, { polling: 20 })
    expect((await click(tile, 'ethereum_provider.request', { session: again, method: 'eth_chainId' })).error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/no such wallet session/) })
  })

  it('none is discoverable or routable, and refusals stay out of what the app (or a model) reads of the audit', async () => {
    const readable = (await raw(tile, 'tools.call', { target: 'kernel', name: 'audit.list', arguments: {} })).ok.entries as { tool: string }[]
    expect(readable.filter((e) => PRIVATE.includes(e.tool))).toEqual([])
    const kernelTools = await tile.evaluate(() => (globalThis as any).fixture.raw('tools.list', { target: 'kernel' }))
    const names = kernelTools.ok.tools.map((t: { name: string }) => t.name)
    for (const name of PRIVATE) expect(names).not.toContain(name)
    for (const name of PRIVATE) {
      expect((await raw(tile, 'tools.call', { target: 'kernel', name, arguments: {} })).error?.code).toBe('UNKNOWN_TOOL')
      expect((await raw(otherTile, 'tools.call', { target: 'app:gestures:background', name, arguments: {} })).error?.code).toBe('GRANT_REQUIRED')
    }
    const all = await audit(shell.page)
    const refused = all.filter((e) => PRIVATE.includes(e.tool) && e.target === 'kernel' && e.code !== 'UNKNOWN_TOOL')
    expect(refused.length).toBeGreaterThan(10)
    expect(refused.every((e: any) => e.private === true && e.status === 'error')).toBe(true)
    // Successes are not audited at all.
    expect(all.filter((e) => PRIVATE.includes(e.tool) && e.status === 'ok')).toEqual([])
    // The routing attempts above were tools.call (public entries: UNKNOWN_TOOL / GRANT_REQUIRED), not private actions.
  })
})
