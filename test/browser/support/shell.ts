/**
 * Browser-test harness: one real `wrangler dev` (which builds the shell) and
 * one real Chromium per test file, pointed at the shell it serves.
 *
 * @example
 * const shell = await openShell({ demo: false })
 * await installFixtures(shell.page, [TARGET, HOSTILE])
 * const hostile = await appFrame(shell.page, 'hostile', 'tile')
 */
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Browser, type Frame, type Page, chromium } from 'playwright-core'
import { startWrangler, type Wrangler } from '../../support/wrangler.ts'

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run']

/** Screenshots and other artefacts (git-ignored). */
export const ARTIFACTS = resolve(import.meta.dirname, '../../../test-results/browser')

export interface Shell {
  dev: Wrangler
  browser: Browser
  page: Page
  errors: string[]
  close(): Promise<void>
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS })
}

export async function openShell(options: { demo?: boolean } = {}): Promise<Shell> {
  mkdirSync(ARTIFACTS, { recursive: true })
  const dev = await startWrangler()
  let browser: Browser | undefined
  try {
    browser = await launchChromium()
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(`${dev.url}/${options.demo === false ? '?demo=0' : ''}`)
    await page.waitForFunction(() => 'neutron' in window)
    const b = browser
    return { dev, browser: b, page, errors, close: async () => void (await b.close(), await dev.stop()) }
  } catch (error) {
    await browser?.close()
    await dev.stop()
    throw error
  }
}

/** Fixture manifests (pages built from shell-web/fixtures). */
export const TARGET = {
  id: 'target',
  version: '1.0.0',
  title: 'Target',
  entries: { background: '/fixtures/target/background', tile: '/fixtures/target/tile' },
  tools: ['echo', 'slow', 'bad_output', 'relay'],
  agentEntrypoints: ['echo', 'slow', 'relay'],
}
export const HOSTILE = {
  id: 'hostile',
  version: '6.6.6',
  title: 'Totally Trustworthy',
  entries: { tile: '/fixtures/hostile/tile', background: '/fixtures/hostile/background' },
  tools: ['slow', 'raw_bad_output', 'flood', 'late', 'whoami', 'answer_after_cancel'],
  permissions: ['target'],
  agentEntrypoints: ['slow', 'whoami'],
}

/**
 * Signs the dev person in and waits until the shell runs their server installs of `apps` (it
 * replaces whatever the kernel ran under those ids once they arrive), then takes those apps out
 * of the kernel, so a test can run its fixture frontends over the same installed backends, as a
 * developer running a local frontend would.
 *
 * @example
 * await signInOverInstalls(shell.page, ['counter'])
 * await install(shell.page, { id: 'counter', version: '1.0.0', title: 'Counter', entries: { tile: '/fixtures/backend/tile' }, tools: [] })
 */
export async function signInOverInstalls(page: Page, apps: string[]): Promise<void> {
  await page.click('[data-action="dev-sign-in"]')
  await page.waitForFunction(() => (window as any).neutron.panel.connection, undefined, { timeout: 30_000 })
  await page.waitForFunction((apps) => apps.every((app) => JSON.stringify((window as any).neutron.kernel.manifest(app)?.entries ?? {}).includes('/app-frames/')), apps, { timeout: 30_000 })
  await page.evaluate((apps) => {
    const { kernel, workspaces } = (window as any).neutron
    for (const app of apps) {
      workspaces.forget(app)
      kernel.uninstall(app)
    }
  }, apps)
}

export async function install(page: Page, manifest: object): Promise<void> {
  await page.evaluate((m) => (window as any).neutron.install(m), manifest)
}

/** Opens a tile through the workspace, as the launcher does; returns its endpoint id. */
export async function openTile(page: Page, app: string, params?: Record<string, string>): Promise<string> {
  const opened = await page.evaluate(([a, p]) => (window as any).neutron.workspaces.openTile(a, p), [app, params] as const)
  if (!opened.endpoint) throw new Error(`openTile(${app}): ${JSON.stringify(opened)}`)
  await waitForEndpoint(page, opened.endpoint)
  return opened.endpoint
}

export function liveEndpoints(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as any).neutron.kernel.endpoints.list().map((e: { id: string }) => e.id))
}

/** Waits until `id` is live and (for apps using the SDK) has finished registering `tools`. */
export async function waitForEndpoint(page: Page, id: string, tools: string[] = []): Promise<void> {
  await page.waitForFunction(
    ([id, tools]) => {
      const ep = (window as any).neutron.kernel.endpoints.get(id)
      return !!ep && tools.every((t: string) => ep.tools.has(t))
    },
    [id, tools] as const,
    { timeout: 60_000 }, // a shared, loaded machine can take this long to start a frame
  )
}

/** The Playwright frame of the live endpoint `id` (found by the kernel's data-endpoint mark). */
export async function frameOf(page: Page, id: string): Promise<Frame> {
  const handle = await page.waitForSelector(`iframe[data-endpoint="${id}"]`, { state: 'attached' })
  const frame = await handle.contentFrame()
  if (!frame) throw new Error(`no frame for ${id}`)
  return frame
}

export interface AuditRow {
  seq: number
  caller: string
  callerApp: string | null
  target: string
  tool: string
  status: string
  code?: string
  args?: string
  result?: string
  count: number
}

export function audit(page: Page): Promise<AuditRow[]> {
  return page.evaluate(() => (window as any).neutron.kernel.audit.list().map((e: object) => ({ ...e })))
}

/** Entries appended after `since` (a seq). */
export async function auditSince(page: Page, since: number): Promise<AuditRow[]> {
  return (await audit(page)).filter((e) => e.seq > since)
}

export async function lastSeq(page: Page): Promise<number> {
  return (await audit(page)).at(-1)?.seq ?? 0
}

/** Grants directly on the trusted page (the person's role), bypassing the dialog. */
export async function grant(page: Page, sourceEndpoint: string, sourceApp: string, targetApp: string, scope: 'call' | 'session'): Promise<void> {
  await page.evaluate(([e, s, t, sc]) => (window as any).neutron.kernel.grants.grant({ endpoint: e, app: s }, t, sc), [sourceEndpoint, sourceApp, targetApp, scope] as const)
}

export async function revoke(page: Page, sourceApp: string, targetApp: string): Promise<void> {
  await page.evaluate(([s, t]) => (window as any).neutron.kernel.grants.revoke(s, t), [sourceApp, targetApp] as const)
}

/** Reads `globalThis.fixture` (or a path in it) inside an app frame. */
export function fixtureState<T = any>(frame: Frame, path: string): Promise<T> {
  return frame.evaluate((p) => p.split('.').reduce((v: any, k) => v?.[k], (globalThis as any).fixture), path)
}

/**
 * Counts the page's WebSockets (and lets a test drop them, a network drop as the page sees it):
 * each socket the page opens from now on is kept in `window.__sockets`. Reloads the page so the
 * shell starts with it in place.
 *
 * @example
 * await trackSockets(shell.page)
 * await shell.page.evaluate(() => (window as any).__sockets.at(-1).close())
 */
export async function trackSockets(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Native = WebSocket
    const all: WebSocket[] = ((window as any).__sockets = [])
    ;(window as any).WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols)
        all.push(this)
      }
    }
  })
  await page.reload()
  await page.waitForFunction(() => 'neutron' in window)
}
