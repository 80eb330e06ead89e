/**
 * Installs per signed-in person, in real Chromium against a real `wrangler dev`: signing in runs
 * the person's installs from the server (the demo apps are ordinary packages, installed through
 * the API on a first sign-in), their frames load the package files from `/app-frames/…` under the
 * sandbox CSP, and a reload brings the same installs back; an upgrade through the API reloads the
 * app mid-call (ENDPOINT_GONE, grants gone, the new build answers); `apps.install_offer` shows the
 * person what is offered and installs, upgrades or stores nothing, with a code for every failure;
 * signing out tears every endpoint down.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import canonicalize from 'canonicalize'
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APP_CSP } from '../../objects/apps/frame-policy.ts'
import { appPackage } from '../../shell-web/apps/packages.ts'
import { COUNTER } from '../fixtures/apps/packages.ts'
import { type PageGestures, gestures } from './support/gestures.ts'
import { ARTIFACTS, TARGET, frameOf, grant, install, liveEndpoints, openShell, openTile, type Shell, waitForEndpoint } from './support/shell.ts'

type Outcome = { ok?: any; error?: { code: string; message: string; retryAfterMs?: number } }

const DIST = resolve(import.meta.dirname, '../../dist/shell')
const bundle = (path: string) => readFileSync(resolve(DIST, path), 'utf8')
const css = () => bundle('apps/app.css')
const LIFE = { id: 'life', version: '1.0.0', title: 'Life', entries: { tile: 't', background: 'b' }, tools: ['build', 'slow', 'compute'], agentEntrypoints: ['build'] }
const lifePackage = (version: string, background: string) => appPackage({ ...LIFE, version }, { script: (kind) => bundle(kind === 'background' ? `fixtures/${background}/background.js` : 'fixtures/life/tile.js'), css: css() })
const GESTURES = { id: 'gestures', version: '1.0.0', title: 'Gestures', entries: { tile: '/fixtures/gestures/tile', background: '/fixtures/gestures/background' }, tools: [] }
/** The server's content id of a package: SHA-256 of its canonical JSON, defaults filled in. */
const hashOf = (pkg: Record<string, unknown>) => createHash('sha256').update(canonicalize({ ...pkg, interface: pkg.interface ?? { methods: {} } })!).digest('hex')

const OFFERED = 'https://apps.example.test'
/** The sample counter under another id (the README's counter is installed from a terminal below). */
const COUNTER_OFFER = { ...COUNTER, manifest: { ...COUNTER.manifest, app: 'tally', name: 'Tally', origins: ['https://api.example.com'] } }
const COUNTER_NEXT = { ...COUNTER_OFFER, manifest: { ...COUNTER_OFFER.manifest, version: '1.1.0' }, files: { 'index.html': '<!doctype html><title>Counter</title><p>Counter 1.1</p>' } }
const GREETER = { manifest: { app: 'greeter', version: '1.0.0', name: 'Greeter', entry: 'index.html' }, files: { 'index.html': '<p>hello</p>' } }
const BROKEN = { ...GREETER, manifest: { ...GREETER.manifest, app: 'broken' }, backend: { module: 'export default {' } }

let shell: Shell
let g: PageGestures
let gesturesId: string
const page = () => shell.page
const panel = () => page().locator('#agent-panel')
/** A request to the API with the shell's own token (what the person's client sends). */
const apiGet = (path: string): Promise<{ status: number; body: any }> =>
  page().evaluate(async (path) => {
    const res = await fetch(path, { headers: { authorization: `Bearer ${(window as any).neutron.panel.connection.authorization.token}` } })
    return { status: res.status, body: await res.json() }
  }, path)
const serverInstalls = async () => ((await apiGet('/v1/apps/installs')).body.items as { app: string; version: string; hash: string; files: string }[]).map(({ app, version, hash }) => ({ app, version, hash }))
const kernelApp = (id: string) => page().evaluate((id) => (window as any).neutron.kernel.manifest(id) ?? null, id)
const identity = (id: string) => page().evaluate((id) => (window as any).neutron.kernel.identity(id), id)
async function reload() {
  await page().reload()
  await page().waitForFunction(() => 'neutron' in window)
}

/** A person's click on the gestures tile (support/gestures.ts), sending apps.install_offer { url }; resolves with the answer once `then` ran. */
async function offer(tile: Frame, url: string, then?: () => Promise<void>): Promise<Outcome> {
  const before = await tile.evaluate(() => (globalThis as any).fixture.outcomes.length)
  await g.postToFrame(gesturesId, { fixtureNext: { action: 'tools.call', payload: { target: 'kernel', name: 'apps.install_offer', arguments: { url } } } })
  if ((await g.value('window.neutron.kernel.gestures.state().owner')) !== gesturesId) await g.quiet()
  await g.clickFrame(gesturesId)
  await then?.()
  await tile.waitForFunction((n) => (globalThis as any).fixture.outcomes.length > n, before, { polling: 20, timeout: 60_000 })
  return tile.evaluate(() => (globalThis as any).fixture.outcomes.at(-1))
}
/** Waits for the offer dialog, reads what it shows, and answers. */
async function answer(decision: 'accept' | 'refuse'): Promise<Record<string, string>> {
  const dialog = page().locator('#offer-dialog[open]')
  await dialog.waitFor()
  const shown = { text: await dialog.innerText(), hash: await dialog.locator('[data-offer=hash]').innerText(), backend: await dialog.locator('[data-offer=backend]').innerText(), origins: await dialog.locator('[data-offer=origins]').innerText() }
  const button = dialog.locator(`[data-offer-decision=${decision}]`)
  await expect.poll(() => button.isEnabled()).toBe(true)
  await button.click()
  return shown
}
async function gesturesTile(): Promise<Frame> {
  if (!(await kernelApp('gestures'))) await install(page(), GESTURES)
  const id = (gesturesId = await openTile(page(), 'gestures'))
  const tile = await frameOf(page(), id)
  await tile.evaluate(() => (globalThis as any).fixture.ready)
  return tile
}

beforeAll(async () => {
  shell = await openShell()
  // Package URLs on another origin, served by the test (the trusted page fetches them itself).
  const big = JSON.stringify({ ...GREETER, files: { 'index.html': 'x'.repeat(5 * 1024 * 1024) } })
  const served: Record<string, { status?: number; body: string; delayMs?: number }> = {
    '/tally.json': { body: JSON.stringify(COUNTER_OFFER) },
    '/tally-next.json': { body: JSON.stringify(COUNTER_NEXT) },
    '/greeter.json': { body: JSON.stringify(GREETER) },
    '/slow-greeter.json': { body: JSON.stringify(GREETER), delayMs: 3_000 },
    '/broken.json': { body: JSON.stringify(BROKEN) },
    '/big.json': { body: big },
    '/not-json.json': { body: 'hello' },
    '/not-a-package.json': { body: JSON.stringify({ manifest: { app: 'x' } }) },
  }
  await page().context().route(`${OFFERED}/**`, async (route) => {
    const entry = served[new URL(route.request().url()).pathname]
    if (entry?.delayMs) await new Promise((r) => setTimeout(r, entry.delayMs))
    await route.fulfill(entry ? { status: 200, body: entry.body, headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' } } : { status: 404, body: 'no' })
  })
  g = await gestures(page())
})
afterAll(async () => {
  await g?.close()
  await shell?.close()
})

describe('installs per signed-in person', () => {
  it('signed out, an install offer is SIGN_IN_REQUIRED and the shell runs this browser\u2019s installs', async () => {
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search'])
    expect((await kernelApp('notes')).entries.background).toBe('/apps/notes/background')
    expect((await identity('notes')).scope).toBe('local')
    const tile = await gesturesTile()
    expect((await offer(tile, `${OFFERED}/tally.json`)).error?.code).toBe('SIGN_IN_REQUIRED')
    await page().evaluate(() => (window as any).neutron.uninstall('gestures'))
  }, 90_000)

  it('signing in runs the person\u2019s installs: the demo apps as packages through the API, their frames reading the package files under the sandbox CSP; a reload brings them back', async () => {
    const local = await page().evaluate(() => localStorage.getItem('neutron.installs.v1'))
    // The README's steps: the sample counter installed from a terminal, with the dev token, first.
    const fromTerminal = await page().evaluate(async (pkg) => {
      const { token } = await (await fetch('/v1/dev/token', { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })).json()
      const post = (path: string, body: unknown) => fetch(path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const { hash } = await (await post('/v1/apps/packages', pkg)).json()
      return (await post('/v1/apps/installs', { package: hash })).status
    }, JSON.parse(bundle('packages/counter.json')))
    expect(fromTerminal).toBe(201)
    await panel().locator('[data-action=dev-sign-in]').click()
    await panel().locator('[data-action=sign-out]').waitFor()
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search', 'notes_list'])
    const notes = await kernelApp('notes')
    expect(notes.entries).toEqual({ tile: expect.stringMatching(/^\/app-frames\/[0-9a-f]{64}\.[^/]+\/tile\.html$/), tray: expect.stringMatching(/\/tray\.html$/), background: expect.stringMatching(/\/background\.html$/) })
    expect((await identity('notes')).scope).toMatch(/^person:/)
    const installs = await serverInstalls()
    expect(installs.map((i) => i.app)).toEqual(['counter', 'notes', 'planner'])
    expect((await kernelApp('counter')).entries.tile).toMatch(/^\/app-frames\/[0-9a-f]{64}\.[^/]+\/tile\.html$/)
    await page().locator('#launcher [data-open=counter]').click()
    // The sample's tile joins the bus (its endpoint replaces "connecting…") and reads its backend.
    const counterTile = page().frameLocator('section.tile[data-app="counter"] iframe')
    await expect.poll(() => counterTile.locator('body').innerText(), { timeout: 30_000 }).toContain('A counter with a backend.')
    await expect.poll(() => page().locator('section.tile[data-app="counter"] .endpoint').innerText(), { timeout: 30_000 }).toMatch(/^app:counter:tile:/)
    await expect.poll(() => counterTile.locator('output.count').innerText(), { timeout: 30_000 }).toBe('0')
    await counterTile.locator('button.increment').click()
    await expect.poll(() => counterTile.locator('output.count').innerText(), { timeout: 30_000 }).toBe('1')
    // The same bytes the build wrote, content-addressed.
    expect(installs[1]!.hash).toBe(hashOf(JSON.parse(bundle('packages/notes.json'))))
    // The frame's document came from the package, with the same CSP as every app page; no token needed.
    const src = await page().locator('#backgrounds iframe[data-app="notes"]').getAttribute('src')
    const served = await page().evaluate(async (src) => {
      const res = await fetch(src!, { credentials: 'omit' })
      return { status: res.status, csp: res.headers.get('content-security-policy'), body: await res.text() }
    }, src)
    expect(served).toMatchObject({ status: 200, csp: APP_CSP, body: expect.stringContaining('background.js') })
    expect(await page().frameLocator('section.tile[data-app="notes"] iframe').locator('body').innerText()).toContain('Roadmap')
    // Nothing of the person's was written to this browser's installs.
    expect(await page().evaluate(() => localStorage.getItem('neutron.installs.v1'))).toBe(local)

    await reload()
    await panel().locator('[data-action=sign-out]').waitFor()
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search'])
    expect((await kernelApp('notes')).entries.background).toBe(notes.entries.background)
    expect((await identity('notes')).scope).toMatch(/^person:/)
    expect(await page().locator('#installs [data-installs-owner]').getAttribute('data-installs-owner')).toBe('dev')
    await page().screenshot({ path: resolve(ARTIFACTS, 'installs.png') })
  }, 120_000)

  it('an upgrade through the API reloads the app: a call in flight ends with ENDPOINT_GONE, grants and Agent Mode consent bound to the old build go, the new build answers, and a reload keeps it', async () => {
    const v1 = lifePackage('1.0.0', 'life')
    const first = await page().evaluate((pkg) => (window as any).neutron.installs().install(pkg), v1)
    expect(first).toEqual({ app: 'life', version: '1.0.0', hash: hashOf(v1), from: null })
    await waitForEndpoint(page(), 'app:life:background', LIFE.tools)
    const tileId = await openTile(page(), 'life')
    const tile = await frameOf(page(), tileId)
    await tile.evaluate(() => (globalThis as any).life.ready)
    const call = (name: string, args: object, timeout?: number) => tile.evaluate(([n, a, t]) => (globalThis as any).life.call(n, a, t), [name, args, timeout] as const)
    expect((await call('build', {})).ok).toEqual({ build: 'v1' })
    await install(page(), TARGET)
    await waitForEndpoint(page(), 'app:target:background')
    await grant(page(), 'app:target:background', 'target', 'life', 'session')
    // Agent Mode enabled for this exact version (the owner's answer to the consent dialog).
    await page().evaluate(() => {
      const mode = (window as any).neutron.kernel.agentMode
      const answer = mode.ask({ app: 'life', version: '1.0.0', title: 'Life', entrypoint: 'build', endpoint: 'test' })
      mode.decide(mode.pending().id, 'allow')
      return answer
    })
    const before = await identity('life')

    const inFlight = call('slow', { ms: 20_000 }, 40)
    await page().waitForFunction((id) => (window as any).neutron.kernel.calls.openFor((window as any).neutron.kernel.endpoints.get(id)) === 1, tileId, { polling: 20 })
    const v2 = lifePackage('2.0.0', 'life-next')
    const upgraded = await page().evaluate((pkg) => (window as any).neutron.installs().install(pkg), v2)
    expect(upgraded).toEqual({ app: 'life', version: '2.0.0', hash: hashOf(v2), from: '1.0.0' })
    expect((await inFlight).error?.code).toBe('ENDPOINT_GONE')
    expect(await page().evaluate(() => (window as any).neutron.kernel.grants.view('app:target:background', 'target', 'life').session)).toBe(false)
    expect(await page().evaluate(() => (window as any).neutron.kernel.agentMode.enabled('life'))).toEqual([])
    const after = await identity('life')
    expect(after).toMatchObject({ version: '2.0.0', scope: before.scope })
    expect(after.path).not.toBe(before.path) // the new content id
    await waitForEndpoint(page(), 'app:life:background', LIFE.tools)
    expect(await (await frameOf(page(), 'app:life:background')).evaluate(() => (globalThis as any).fixture.build)).toBe('v2')
    expect(await liveEndpoints(page())).not.toContain(tileId)
    expect((await serverInstalls()).find((i) => i.app === 'life')).toEqual({ app: 'life', version: '2.0.0', hash: hashOf(v2) })

    await reload()
    await panel().locator('[data-action=sign-out]').waitFor()
    await waitForEndpoint(page(), 'app:life:background', LIFE.tools)
    expect((await identity('life')).path).toBe(after.path)
    expect(await kernelApp('target')).toBeNull() // installed in the kernel only, never for the person
  }, 120_000)

  it('apps.install_offer: the person sees name, version, content id, backend and origins; Accept installs, a second offer of the same app upgrades', async () => {
    const tile = await gesturesTile()
    let shown: Record<string, string> = {}
    const accepted = await offer(tile, `${OFFERED}/tally.json`, async () => void (shown = await answer('accept')))
    expect(accepted).toEqual({ ok: { installed: true, app: 'tally', version: '1.0.0', hash: hashOf(COUNTER_OFFER), upgradedFrom: null } })
    expect(shown.text).toContain('Tally')
    expect(shown.text).toContain('tally version 1.0.0')
    expect(shown.hash).toBe(hashOf(COUNTER_OFFER))
    expect(shown.backend).toBe('yes: count, increment')
    expect(shown.origins).toBe('https://api.example.com')
    expect((await serverInstalls()).find((i) => i.app === 'tally')).toEqual({ app: 'tally', version: '1.0.0', hash: hashOf(COUNTER_OFFER) })
    expect((await kernelApp('tally')).entries.tile).toMatch(new RegExp(`^/app-frames/${hashOf(COUNTER_OFFER)}\\.[^/]+/index\\.html$`))

    const upgraded = await offer(tile, `${OFFERED}/tally-next.json`, async () => void (shown = await answer('accept')))
    expect(upgraded.ok).toMatchObject({ app: 'tally', version: '1.1.0', hash: hashOf(COUNTER_NEXT), upgradedFrom: '1.0.0' })
    expect(shown.text).toContain('Version 1.0.0 is installed')
    expect((await kernelApp('tally')).version).toBe('1.1.0')
  }, 120_000)

  it('a refused offer is OFFER_REFUSED and stores nothing; every other failure has its own code', async () => {
    const tile = await gesturesTile()
    const refused = await offer(tile, `${OFFERED}/greeter.json`, async () => void (await answer('refuse')))
    expect(refused.error?.code).toBe('OFFER_REFUSED')
    expect((await serverInstalls()).map((i) => i.app)).not.toContain('greeter')
    expect((await apiGet(`/v1/apps/packages/${hashOf(GREETER)}`)).body.error.code).toBe('PACKAGE_NOT_FOUND')
    expect(await kernelApp('greeter')).toBeNull()

    const errorOf = async (url: string) => (await offer(tile, url)).error
    expect(await errorOf('ftp://apps.example.test/counter.json')).toMatchObject({ code: 'OFFER_URL_INVALID' })
    expect(await errorOf('https://user:pw@apps.example.test/counter.json')).toMatchObject({ code: 'OFFER_URL_INVALID' })
    expect(await errorOf(`${OFFERED}/missing.json`)).toMatchObject({ code: 'OFFER_FETCH_FAILED' })
    expect(await errorOf(`${OFFERED}/big.json`)).toMatchObject({ code: 'OFFER_TOO_LARGE' })
    expect(await errorOf(`${OFFERED}/not-json.json`)).toMatchObject({ code: 'OFFER_INVALID' })
    expect(await errorOf(`${OFFERED}/not-a-package.json`)).toMatchObject({ code: 'OFFER_INVALID' })
    // Refused a moment ago, the app's next dialog would wait (remembered); the test lets that pass.
    await page().evaluate(() => (window as any).neutron.kernel.dialogs.forget('gestures'))
    // Accepted, but the server refuses the package: its code, and nothing installed.
    const broken = await offer(tile, `${OFFERED}/broken.json`, async () => void (await answer('accept')))
    expect(broken.error).toMatchObject({ code: 'INSTALL_FAILED', message: expect.stringContaining('BACKEND_LOAD_FAILED') })
    expect((await serverInstalls()).map((i) => i.app)).not.toContain('broken')
    // One offer at a time: while one is being fetched, a second is UI_BUSY with a retry hint.
    const sent = await tile.evaluate(() => (globalThis as any).fixture.outcomes.length)
    void offer(tile, `${OFFERED}/slow-greeter.json`) // answered below, after the second offer's refusal
    await page().waitForFunction(() => (window as any).neutron.kernel.installOffers.busy(), undefined, { polling: 20 })
    const busy = await offer(tile, `${OFFERED}/greeter.json`)
    expect(busy.error).toMatchObject({ code: 'UI_BUSY', retryAfterMs: 2000 })
    await answer('refuse')
    await tile.waitForFunction((n) => (globalThis as any).fixture.outcomes.length >= n + 2, sent)
    expect(await tile.evaluate(() => (globalThis as any).fixture.outcomes.at(-1).error?.code)).toBe('OFFER_REFUSED')
    // Without a click: USER_ACTIVATION_REQUIRED. From a background: PERMISSION_DENIED.
    const noClick = await tile.evaluate(() => new Promise<Outcome>((resolve) => setTimeout(() => void (globalThis as any).fixture.raw('tools.call', { target: 'kernel', name: 'apps.install_offer', arguments: { url: 'https://apps.example.test/counter.json' } }).then(resolve), 6_000)))
    expect(noClick.error?.code).toBe('USER_ACTIVATION_REQUIRED')
    const bg = await frameOf(page(), 'app:gestures:background')
    const fromBackground = await bg.evaluate(() => (globalThis as any).fixture.raw('tools.call', { target: 'kernel', name: 'apps.install_offer', arguments: { url: 'https://apps.example.test/counter.json' } }))
    expect(fromBackground.error?.code).toBe('PERMISSION_DENIED')
  }, 120_000)

  it('signing out tears every endpoint down; a reload then runs this browser\u2019s installs again', async () => {
    await panel().locator('[data-action=sign-out]').click()
    await panel().locator('[data-action=dev-sign-in]').waitFor()
    expect(await liveEndpoints(page())).toEqual([])
    expect(await page().evaluate(() => (window as any).neutron.kernel.apps().length)).toBe(0)
    await reload()
    await waitForEndpoint(page(), 'app:notes:background', ['notes_search'])
    expect((await kernelApp('notes')).entries.background).toBe('/apps/notes/background')
    expect((await identity('notes')).scope).toBe('local')
    expect(await kernelApp('counter')).toBeNull()
    expect(await kernelApp('tally')).toBeNull()
    expect(shell.errors).toEqual([])
  }, 90_000)
})
