/**
 * The bus between real sandboxed iframes in real Chromium, served by a real
 * `wrangler dev`: handshake, routing, discovery, liveness, kernel tools and
 * state invalidation.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TARGET, audit, fixtureState, frameOf, install, lastSeq, liveEndpoints, openShell, openTile, type Shell, waitForEndpoint, auditSince } from './support/shell.ts'

const BG = 'app:target:background'
let shell: Shell
let tileId: string
let tile: Frame
let background: Frame

const call = (frame: Frame, name: string, args: unknown, target = BG) =>
  frame.evaluate(
    ([t, n, a]) => (globalThis as any).fixture.bus.callTool({ target: t, name: n, arguments: a }).then((ok: unknown) => ({ ok }), (e: any) => ({ error: { code: e.code, message: e.message } })),
    [target, name, args] as const,
  )

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, TARGET)
  await waitForEndpoint(shell.page, BG, ['echo', 'slow', 'bad_output'])
  tileId = await openTile(shell.page, 'target')
  tile = await frameOf(shell.page, tileId)
  background = await frameOf(shell.page, BG)
})
afterAll(() => shell?.close())

describe('handshake', () => {
  it('the kernel mints the endpoint ids and hands each frame its own port', async () => {
    expect(tileId).toMatch(/^app:target:tile:t\d+:instance:[0-9a-f]{8}$/)
    expect(await liveEndpoints(shell.page)).toEqual(expect.arrayContaining([BG, tileId]))
    expect(await tile.evaluate(() => (globalThis as any).fixture.bus.ready)).toEqual({ endpoint: tileId, app: 'target', kind: 'tile' })
    expect(await background.evaluate(() => (globalThis as any).fixture.bus.ready)).toEqual({ endpoint: BG, app: 'target', kind: 'background' })
  })

  it('app frames are sandboxed with an opaque origin; the background is hidden and inert', async () => {
    expect(await tile.evaluate(() => self.origin)).toBe('null')
    expect(await background.evaluate(() => self.origin)).toBe('null')
    const attrs = await shell.page.evaluate((id) => {
      const f = document.querySelector<HTMLIFrameElement>(`iframe[data-endpoint="${id}"]`)!
      return { sandbox: f.getAttribute('sandbox'), hidden: f.hidden, inert: f.inert, tabIndex: f.tabIndex, visible: f.getClientRects().length > 0 }
    }, BG)
    expect(attrs).toEqual({ sandbox: 'allow-scripts', hidden: true, inert: true, tabIndex: -1, visible: false })
    // The frame cannot reach the shell or the network.
    expect(await tile.evaluate(() => { try { return (parent as any).neutron ? 'reached' : 'undefined' } catch (e) { return (e as Error).name } })).toBe('SecurityError')
    expect(await tile.evaluate(() => fetch('/health').then(() => 'fetched', () => 'blocked'))).toBe('blocked')
  })

  it('app pages keep their sandbox CSP when opened directly', async () => {
    const res = await fetch(`${shell.dev.url}/fixtures/target/tile`)
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox allow-scripts/)
    expect(res.headers.get('content-security-policy')).toMatch(/connect-src 'none'/)
    const home = await fetch(`${shell.dev.url}/`)
    expect(home.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/)
    // The API is untouched by the static assets.
    expect(await (await fetch(`${shell.dev.url}/health`)).json()).toMatchObject({ ok: true })
  })
})

describe('routing', () => {
  it('a tile calls its own background; the target sees the kernel-derived caller; the call is audited', async () => {
    const since = await lastSeq(shell.page)
    expect(await call(tile, 'echo', { text: 'hi' })).toEqual({ ok: { text: 'hi' } })
    expect(await fixtureState(background, 'callers')).toContain(tileId)
    const [entry] = await auditSince(shell.page, since)
    expect(entry).toMatchObject({ caller: tileId, callerApp: 'target', target: BG, tool: 'echo', status: 'ok', args: '{"text":"hi"}', result: '{"text":"hi"}' })
  })

  it('progress reaches the caller before the one result', async () => {
    const seen = await tile.evaluate(async () => {
      const values: unknown[] = []
      const result = await (globalThis as any).fixture.bus.callTool({ target: 'app:target:background', name: 'slow', arguments: { ms: 100, steps: 4 } }, { onProgress: (v: unknown) => values.push(v) })
      return { values, result }
    })
    expect(seen).toEqual({ values: [1, 2, 3, 4].map((step) => ({ step, of: 4 })), result: { done: true } })
  })

  it('a timeout ends the call with TIMEOUT and cancels the invocation at the target', async () => {
    const cancelled = await fixtureState<number>(background, 'cancelled')
    const outcome = await tile.evaluate(() => (globalThis as any).fixture.bus.callTool({ target: 'app:target:background', name: 'slow', arguments: { ms: 2000 } }, { timeout: 0.2 }).catch((e: any) => e.code))
    expect(outcome).toBe('TIMEOUT')
    await expect.poll(() => fixtureState<number>(background, 'cancelled')).toBe(cancelled + 1)
    expect((await audit(shell.page)).at(-1)).toMatchObject({ tool: 'slow', status: 'error', code: 'TIMEOUT' })
  })

  it('unknown targets and tools are refused with their codes', async () => {
    expect(await call(tile, 'echo', { text: 'x' }, 'app:nobody:background')).toMatchObject({ error: { code: 'UNKNOWN_TARGET' } })
    expect(await call(tile, 'nope', {})).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    expect(await call(tile, 'nope', {}, 'kernel')).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
  })

  it('the endpoint validates its own output (SCHEMA_VIOLATION) before anything leaves the frame', async () => {
    expect(await call(tile, 'bad_output', {})).toMatchObject({ error: { code: 'SCHEMA_VIOLATION', message: expect.stringContaining('output') } })
  })
})

describe('discovery', () => {
  it('asks the live endpoint every time, and a removed tool is gone at once', async () => {
    await background.evaluate(async () => {
      const port: MessagePort = await (globalThis as any).fixture.bus.rawPort()
      ;(globalThis as any).describes = 0
      port.addEventListener('message', (e) => e.data?.payload?.action === 'tools.describe' && (globalThis as any).describes++)
    })
    const list = () => tile.evaluate(() => (globalThis as any).fixture.bus.listTools('app:target:background').then((tools: { name: string }[]) => tools.map((t) => t.name)))
    expect(await list()).toEqual(['echo', 'slow', 'bad_output', 'relay'])
    expect(await list()).toEqual(['echo', 'slow', 'bad_output', 'relay'])
    expect(await background.evaluate(() => (globalThis as any).describes)).toBe(2)

    await background.evaluate(() => (globalThis as any).fixture.bus.removeExposedTool('bad_output'))
    expect(await list()).toEqual(['echo', 'slow', 'relay'])
    expect(await call(tile, 'bad_output', {})).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    const kernelTools = await tile.evaluate(() => (globalThis as any).fixture.bus.listTools('kernel').then((t: { name: string }[]) => t.map((x) => x.name)))
    expect(kernelTools).toEqual(['apps.list', 'apps.describe', 'endpoints.list', 'permissions.request', 'audit.list', 'workspace.open_tile', 'attachments.delegate', 'apps.install_offer', 'canister.schema', 'canister.call_dialog', 'backend_calls.request', 'backend_calls.list'])
  })

  it('exposing a tool the manifest does not declare, or an unsafe schema, is refused', async () => {
    const refused = await background.evaluate(async () => {
      const bus = (globalThis as any).fixture.bus
      const undeclared = await bus.exposeTool('sneaky', { title: 's', description: 's', inputSchema: true, outputSchema: true }, () => 1).catch((e: any) => e.code)
      let unsafe = 'accepted'
      try {
        bus.exposeTool('echo', { title: 'e', description: 'e', inputSchema: { type: 'string', pattern: '^(a+)+$' }, outputSchema: true }, () => 1)
      } catch (e: any) {
        unsafe = e.code
      }
      return { undeclared, unsafe }
    })
    expect(refused).toEqual({ undeclared: 'TOOL_NOT_DECLARED', unsafe: 'SCHEMA_REJECTED' })
  })
})

describe('kernel tools', () => {
  it('apps.list marks metadata untrusted; endpoints.list lists live endpoints only; audit.list returns own entries', async () => {
    const result = await tile.evaluate(async () => {
      const bus = (globalThis as any).fixture.bus
      return { apps: await bus.listApps(), describe: await bus.describeApp('target'), endpoints: await bus.listEndpoints(), audit: await bus.auditList() }
    })
    expect(result.apps).toEqual([{ id: 'target', version: '1.0.0', title: 'Target', trust: 'untrusted', entries: { tile: true, tray: false, background: true } }])
    expect(result.describe).toMatchObject({ id: 'target', tools: ['echo', 'slow', 'bad_output', 'relay'], trust: 'untrusted' })
    expect(result.endpoints.map((e: { id: string }) => e.id).sort()).toEqual([BG, tileId].sort())
    expect(result.audit.length).toBeGreaterThan(0)
    expect(result.audit.every((e: { callerApp: string }) => e.callerApp === 'target')).toBe(true)
  })

  it('workspace.open_tile is the navigation path; params are UI context only', async () => {
    const opened = await tile.evaluate(() => (globalThis as any).fixture.bus.openTile('target', { q: 'hello', endpoint: 'app:target:background' }))
    await waitForEndpoint(shell.page, opened.endpoint)
    const frame = await frameOf(shell.page, opened.endpoint)
    expect(new URL(frame.url()).searchParams.get('q')).toBe('hello')
    expect(await frame.evaluate(() => (globalThis as any).fixture.bus.ready.then((r: any) => r.endpoint))).toBe(opened.endpoint)
    await shell.page.evaluate((id) => (window as any).neutron.workspaces.closeTile(id.split(':')[3]), opened.endpoint)
    expect(await liveEndpoints(shell.page)).not.toContain(opened.endpoint)
  })
})

describe('liveness', () => {
  it('closing a tile ends its endpoint; calls in flight to it fail with ENDPOINT_GONE', async () => {
    const extra = await openTile(shell.page, 'target')
    const extraFrame = await frameOf(shell.page, extra)
    const slow = await fixtureState<number>(background, 'calls.slow')
    const cancelled = await fixtureState<number>(background, 'cancelled')
    const pending = extraFrame.evaluate(() => (globalThis as any).fixture.bus.callTool({ target: 'app:target:background', name: 'slow', arguments: { ms: 1500 } }).catch((e: any) => e.code)).catch(() => 'frame gone')
    await expect.poll(() => fixtureState<number>(background, 'calls.slow')).toBe(slow + 1)
    await shell.page.evaluate((id) => (window as any).neutron.workspaces.closeTile(id.split(':')[3]), extra)
    expect(await liveEndpoints(shell.page)).not.toContain(extra)
    await pending
    await expect.poll(() => fixtureState<number>(background, 'cancelled')).toBe(cancelled + 1)
    expect((await audit(shell.page)).find((e) => e.caller === extra && e.tool === 'slow')).toMatchObject({ status: 'error', code: 'ENDPOINT_GONE' })
  })

  it('tiles of an inactive workspace are not live; switching back mounts fresh instances', async () => {
    await shell.page.click('button[data-workspace="1"]')
    expect((await liveEndpoints(shell.page)).filter((id) => id.includes(':tile:'))).toEqual([])
    expect(await liveEndpoints(shell.page)).toContain(BG)
    await shell.page.click('button[data-workspace="0"]')
    await expect.poll(async () => (await liveEndpoints(shell.page)).filter((id) => id.startsWith('app:target:tile:'))).toHaveLength(1)
    const fresh = (await liveEndpoints(shell.page)).find((id) => id.startsWith('app:target:tile:'))!
    expect(fresh).not.toBe(tileId)
    expect(fresh.split(':')[3]).toBe(tileId.split(':')[3]) // same tile slot, new instance
    tileId = fresh
    tile = await frameOf(shell.page, tileId)
    await tile.evaluate(() => (globalThis as any).fixture.bus.ready)
  })

  it('a reloaded frame gets a new session; a background keeps its id but starts afresh', async () => {
    await background.evaluate(() => location.reload())
    await waitForEndpoint(shell.page, BG, ['echo', 'slow', 'bad_output'])
    background = await frameOf(shell.page, BG)
    expect(await fixtureState(background, 'calls.echo')).toBe(0)
    expect(await call(tile, 'echo', { text: 'again' })).toEqual({ ok: { text: 'again' } })
  })
})

describe('state invalidation', () => {
  it('is forwarded only to the other live endpoints of the sender\'s app, newest revision only', async () => {
    await background.evaluate(() => (globalThis as any).fixture.bus.publishAppStateChange('target', 3))
    await expect.poll(() => fixtureState(tile, 'events')).toEqual([{ topic: 'target', revision: 3 }])
    await background.evaluate(() => (globalThis as any).fixture.bus.publishAppStateChange('target', 2))
    await background.evaluate(() => (globalThis as any).fixture.bus.publishAppStateChange('target', 4))
    await expect.poll(() => fixtureState(tile, 'events')).toEqual([{ topic: 'target', revision: 3 }, { topic: 'target', revision: 4 }])
    expect(await fixtureState(background, 'events')).toEqual([]) // not echoed to the sender
    const forged = await background.evaluate(() => (globalThis as any).fixture.bus.rawPort().then((port: MessagePort) => new Promise((resolve) => {
      port.addEventListener('message', (e) => e.data.id === 777 && resolve(e.data.error?.code))
      port.postMessage({ type: 'exec', id: 777, payload: { action: 'app.state.publish', payload: { topic: 'target', revision: 9, app: 'other' } } })
    })))
    expect(forged).toBe('BAD_REQUEST')
  })
})

describe('resident backgrounds', () => {
  it('at most 32 are resident; the 33rd install is refused', async () => {
    const installed = await shell.page.evaluate(() => {
      const n = (window as any).neutron
      const resident = () => n.kernel.apps().filter((a: any) => a.entries.background).length
      const results: string[] = []
      for (let i = 0; resident() < 33 && i < 40; i++) {
        try {
          n.install({ id: `bulk-${i}`, version: '1', title: `Bulk ${i}`, entries: { background: '/fixtures/empty/background' } })
          results.push('ok')
        } catch (e: any) {
          results.push(e.code)
          break
        }
      }
      return { results, resident: resident(), frames: document.querySelectorAll('#backgrounds iframe').length }
    })
    expect(installed.resident).toBe(32)
    expect(installed.frames).toBe(32)
    expect(installed.results.at(-1)).toBe('RESIDENT_LIMIT')
    await expect.poll(async () => (await liveEndpoints(shell.page)).filter((id) => id.startsWith('app:bulk-')).length, { timeout: 20_000 }).toBe(31)
    await shell.page.evaluate(() => { for (let i = 0; i < 31; i++) (window as any).neutron.uninstall(`bulk-${i}`) })
    expect((await liveEndpoints(shell.page)).filter((id) => id.startsWith('app:bulk-'))).toEqual([])
    expect(await shell.page.evaluate(() => document.querySelectorAll('#backgrounds iframe').length)).toBe(1)
  })

  it('no page errors on the trusted page', () => {
    expect(shell.errors).toEqual([])
  })
})
