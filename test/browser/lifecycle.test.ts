/**
 * The background lifecycle in real Chromium (`fixtures/life`, `fixtures/life-next`): a
 * background's identity (app version, installation scope, runtime generation, background path,
 * origin mode); an upgrade or an authority change reloads the app's frames and ends what was bound
 * to the old identity (endpoints, calls, grants, delegation tokens); signed out, a page reload
 * starts from the built-in apps alone; a dedicated Worker runs inside a sandboxed background; a storm of reloads leaves one
 * consistent endpoint; the 33rd background is refused.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { frameOf, grant, install, liveEndpoints, openShell, openTile, type Shell, TARGET, waitForEndpoint } from './support/shell.ts'

const BG = 'app:life:background'
const LIFE = { id: 'life', version: '1.0.0', title: 'Life', entries: { tile: '/fixtures/life/tile', background: '/fixtures/life/background' }, tools: ['build', 'slow', 'compute'] }
let shell: Shell

const NEXT = { ...LIFE, version: '2.0.0', entries: { ...LIFE.entries, background: '/fixtures/life-next/background' } }
const session = (id: string): Promise<number | undefined> => shell.page.evaluate((id) => (window as any).neutron.kernel.endpoints.get(id)?.session, id)
const build = async (): Promise<string> => (await frameOf(shell.page, BG)).evaluate(() => (globalThis as any).fixture.build)
/** The life tile's current endpoint and frame, once it is connected (it reloads with every restart). */
async function lifeTile(): Promise<[string, Frame]> {
  const id = await shell.page
    .waitForFunction(() => (window as any).neutron.kernel.endpoints.list().find((e: any) => e.app === 'life' && e.kind === 'tile')?.id, undefined, { timeout: 60_000 })
    .then((h) => h.jsonValue() as Promise<string>)
  const frame = await frameOf(shell.page, id)
  await frame.evaluate(() => (globalThis as any).life.ready)
  return [id, frame]
}
const call = (frame: Frame, name: string, args: object, timeout?: number) => frame.evaluate(([n, a, t]) => (globalThis as any).life.call(n, a, t), [name, args, timeout] as const)

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, LIFE)
  await waitForEndpoint(shell.page, BG, LIFE.tools)
})
afterAll(() => shell?.close())

describe('background lifecycle', () => {
  it('a background may run a dedicated Worker (blob URL) inside its sandboxed, opaque frame', async () => {
    const bg = await frameOf(shell.page, BG)
    const out = await bg.evaluate(() => (globalThis as any).fixture.bus.callTool({ target: 'app:life:background', name: 'compute', arguments: { n: 1000 } }).catch((e: any) => e.toJSON()))
    expect(out).toEqual({ sum: 500500, origin: 'null' })
  })

  it('an upgrade mid-call: the call ends with ENDPOINT_GONE, grants and tokens bound to the old identity go, the new build answers', async () => {
    const tileId = await openTile(shell.page, 'life')
    const tile = await frameOf(shell.page, tileId)
    await tile.evaluate(() => (globalThis as any).life.ready)
    expect((await call(tile, 'build', {})).ok).toEqual({ build: 'v1' })
    // Another app with a session grant to life, and a delegation token held by life's background.
    await install(shell.page, TARGET)
    await waitForEndpoint(shell.page, 'app:target:background')
    await grant(shell.page, 'app:target:background', 'target', 'life', 'session')
    await shell.page.evaluate(() => (window as any).neutron.kernel.delegations.mint({ endpoint: 'app:life:background', session: (window as any).neutron.kernel.endpoints.get('app:life:background').session }, { endpoint: 'x', app: 'life' }, {}))
    const before = await session(BG)
    const identityBefore = await shell.page.evaluate(() => (window as any).neutron.kernel.identity('life'))
    expect(identityBefore).toEqual({ app: 'life', version: '1.0.0', scope: 'local', generation: 1, path: '/fixtures/life/background', origin: 'sandboxed-opaque' })

    const inFlight = call(tile, 'slow', { ms: 20_000 }, 40)
    await shell.page.waitForFunction((id) => (window as any).neutron.kernel.calls.openFor((window as any).neutron.kernel.endpoints.get(id)) === 1, tileId, { polling: 20 })
    await shell.page.evaluate((m) => (window as any).neutron.upgrade(m), NEXT)
    expect((await inFlight).error?.code).toBe('ENDPOINT_GONE')
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.delegations.pending())).toBe(0)
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.grants.view('app:target:background', 'target', 'life').session)).toBe(false)
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.identity('life').version)).toBe('2.0.0')

    await waitForEndpoint(shell.page, BG, LIFE.tools)
    expect(await session(BG)).toBeGreaterThan(before!)
    expect(await build()).toBe('v2')
    // The tile reloaded too (a new instance): the old id is gone, a new one answers.
    expect(await liveEndpoints(shell.page)).not.toContain(tileId)
    const [, newTile] = await lifeTile()
    expect((await call(newTile, 'build', {})).ok).toEqual({ build: 'v2' })
    // The same manifest again changes nothing: no reload.
    const now = await session(BG)
    await shell.page.evaluate((m) => (window as any).neutron.upgrade({ ...m, title: 'Life, renamed' }), NEXT)
    expect(await session(BG)).toBe(now)
    // A second install is still ALREADY_INSTALLED: upgrading is its own, explicit path.
    expect(await shell.page.evaluate((m) => { try { (window as any).neutron.install(m); return 'installed' } catch (e: any) { return e.code } }, NEXT)).toBe('ALREADY_INSTALLED')
  }, 90_000)

  it('an authority change (the installation scope) restarts every background and drops every grant', async () => {
    await grant(shell.page, 'app:target:background', 'target', 'life', 'session')
    const [life, target] = [await session(BG), await session('app:target:background')]
    await shell.page.evaluate(() => (window as any).neutron.kernel.setScope('person:ada'))
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.identity('life').scope)).toBe('person:ada')
    await waitForEndpoint(shell.page, BG, LIFE.tools)
    await shell.page.waitForFunction((id) => !!(window as any).neutron.kernel.endpoints.get(id), 'app:target:background', { timeout: 60_000 })
    expect(await session(BG)).toBeGreaterThan(life!)
    expect(await session('app:target:background')).toBeGreaterThan(target!)
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.grants.view('app:target:background', 'target', 'life').session)).toBe(false)
    await shell.page.evaluate(() => (window as any).neutron.kernel.setScope('local'))
    await waitForEndpoint(shell.page, BG, LIFE.tools)
  }, 60_000)

  it('a reload storm (50 reloads of the background, back to back) leaves exactly one live, working endpoint', async () => {
    const calls: Promise<any>[] = []
    const [, tile] = await lifeTile()
    for (let i = 0; i < 8; i++) calls.push(call(tile, 'slow', { ms: 5_000 }, 30))
    await shell.page.evaluate(async () => {
      const frame = [...document.querySelectorAll('#backgrounds iframe')].find((f) => (f as HTMLElement).dataset.app === 'life')
      for (let i = 0; i < 50; i++) {
        ;(frame as HTMLIFrameElement).src = (frame as HTMLIFrameElement).src
        await new Promise((r) => setTimeout(r, i % 5 === 0 ? 30 : 0))
      }
    })
    const outcomes = await Promise.all(calls)
    // Every call ends exactly once, with ENDPOINT_GONE (its document went away) or, if a document
    // lived long enough, its result.
    for (const o of outcomes) expect(o.ok ? 'ok' : o.error.code).toMatch(/^(ok|ENDPOINT_GONE)$/)
    await waitForEndpoint(shell.page, BG, LIFE.tools)
    expect((await liveEndpoints(shell.page)).filter((id) => id === BG)).toHaveLength(1)
    expect((await call(tile, 'build', {})).ok).toEqual({ build: 'v2' })
    expect(await shell.page.evaluate(() => document.querySelectorAll('#backgrounds iframe[data-app="life"]').length)).toBe(1)
    expect(shell.errors).toEqual([])
  }, 90_000)

  it('signed out, a page reload starts from the built-in apps alone: nothing installed on the page is kept in this browser', async () => {
    expect((await shell.page.evaluate(() => (window as any).neutron.kernel.apps())).map((a: any) => a.id)).toContain('life')
    await shell.page.reload()
    await shell.page.waitForFunction(() => 'neutron' in window, undefined, { timeout: 60_000 })
    // ?demo=0: not even the demo apps; nothing was written to this browser's storage to bring back.
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.apps().length)).toBe(0)
    expect(await shell.page.evaluate(() => localStorage.getItem('neutron.installs.v1'))).toBeNull()
    await install(shell.page, NEXT)
    await waitForEndpoint(shell.page, BG, LIFE.tools)
    expect(await build()).toBe('v2')
  }, 90_000)

  it('the 33rd background is refused with RESIDENT_LIMIT, and upgrading one of the 32 still works', async () => {
    const out = await shell.page.evaluate(() => {
      const n = (window as any).neutron
      const results: string[] = []
      for (let i = 0; n.kernel.apps().filter((a: any) => a.entries.background).length < 32; i++) n.install({ id: `filler-${i}`, version: '1.0.0', title: 'Filler', entries: { background: '/fixtures/empty/background' }, tools: [] })
      try {
        n.install({ id: 'one-too-many', version: '1.0.0', title: 'Too many', entries: { background: '/fixtures/empty/background' }, tools: [] })
        results.push('installed')
      } catch (e: any) {
        results.push(e.code)
      }
      try {
        n.install({ id: 'tile-only', version: '1.0.0', title: 'No background', entries: { tile: '/fixtures/target/tile' }, tools: [] })
        results.push('installed')
      } catch (e: any) {
        results.push(e.code)
      }
      try {
        n.upgrade({ id: 'tile-only', version: '1.1.0', title: 'Now with a background', entries: { tile: '/fixtures/target/tile', background: '/fixtures/empty/background' }, tools: [] })
        results.push('upgraded')
      } catch (e: any) {
        results.push(e.code)
      }
      return { results, resident: n.kernel.apps().filter((a: any) => a.entries.background).length, frames: document.querySelectorAll('#backgrounds iframe').length }
    })
    expect(out).toEqual({ results: ['RESIDENT_LIMIT', 'installed', 'RESIDENT_LIMIT'], resident: 32, frames: 32 })
    await shell.page.evaluate((m) => (window as any).neutron.upgrade(m), { ...NEXT, version: '3.0.0' })
    await waitForEndpoint(shell.page, BG, LIFE.tools)
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.identity('life').version)).toBe('3.0.0')
  }, 90_000)
})
