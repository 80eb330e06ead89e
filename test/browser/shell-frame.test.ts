/**
 * The shell's frame in real Chromium against a real `wrangler dev`: Neuron's brand and navigation,
 * the Developer drawer closed by default, one pane at a time on a narrow screen, the Notes tile
 * whole at 800 px, no UNKNOWN_TOOL while tiles and backgrounds start together, a sign-in that
 * lasts across a reload (with the open tiles, and without the grants given for the page's life),
 * and the Counter sample working through its backend. Every flow is checked with axe-core and
 * reached by keyboard; each ends in a screenshot under docs/.
 */
import { copyFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeCheck } from './support/axe.ts'
import { ARTIFACTS, audit, frameOf, openShell, type Shell } from './support/shell.ts'

/** A flow's screenshot; docs/shell-<flow>.png is refreshed on request only (a test run never rewrites tracked files). */
async function screenshot(flow: string): Promise<void> {
  await page().screenshot({ path: resolve(ARTIFACTS, `shell-${flow}.png`) })
  if (process.env.NEURON_UPDATE_SCREENSHOTS === '1') copyFileSync(resolve(ARTIFACTS, `shell-${flow}.png`), resolve(import.meta.dirname, `../../docs/shell-${flow}.png`))
}
let shell: Shell
const page = () => shell.page

beforeAll(async () => {
  shell = await openShell()
})
afterAll(async () => {
  await shell?.close()
})

/** Presses Tab until `selector` has the focus (at most `max` times): the action is reachable by keyboard. */
async function tabTo(p: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await p.keyboard.press('Tab')
    if (await p.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return
  }
  throw new Error(`${selector} is not reached by ${max} presses of Tab`)
}

/** Starts keyboard navigation from the top of the page. */
async function fromTop(p: Page): Promise<void> {
  await p.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
}

const tilesOpen = () => page().evaluate(() => [...document.querySelectorAll<HTMLElement>('#workspace section.tile')].map((t) => t.dataset.app))
const signedIn = () => page().evaluate(() => !!(window as any).neutron.panel.connection)
async function notesShown(): Promise<void> {
  const iframe = page().locator('section.tile[data-app="notes"] iframe[data-endpoint]')
  await iframe.waitFor({ state: 'attached', timeout: 60_000 })
  const frame = await frameOf(page(), (await iframe.getAttribute('data-endpoint'))!)
  await frame.locator('li[data-note]').first().waitFor({ timeout: 60_000 })
}

describe('the frame', () => {
  it('is Neuron: brand, title and navigation; the Developer drawer is closed until opened, all by keyboard, with no blocking axe violation', async () => {
    await notesShown()
    expect(await page().title()).toBe('Neuron')
    expect(await page().locator('.bar .brand').innerText()).toBe('Neuron')
    expect(await page().locator('#nav button').allInnerTexts()).toEqual(['Sessions', 'Conversation', 'Orchestrations', 'Memory', 'Apps'])
    expect(await page().locator('#audit').isVisible()).toBe(false)
    expect(await page().locator('#endpoints').isVisible()).toBe(false)

    await fromTop(page())
    await tabTo(page(), '[data-nav=sessions]')
    await page().keyboard.press('Enter')
    expect(await page().locator('#layout').getAttribute('data-view')).toBe('sessions')
    expect(await page().locator('#pane-sessions .empty').innerText()).toMatch(/Sign in/)
    expect(page().url()).toMatch(/#\/sessions$/)

    await tabTo(page(), '#developer-toggle')
    await page().keyboard.press('Enter')
    await page().locator('#audit').waitFor()
    expect(await page().locator('#developer-toggle').getAttribute('aria-expanded')).toBe('true')
    const report = await axeCheck(page())
    expect(report.blocking).toEqual([])
    expect(report.passes).toBeGreaterThan(10)
    await tabTo(page(), '#developer-close')
    await page().keyboard.press('Enter')
    expect(await page().locator('#developer').isVisible()).toBe(false)

    await page().locator('[data-nav=apps]').click()
    expect(await page().locator('#workspace').isVisible()).toBe(true)
    await screenshot('apps')
  }, 120_000)

  it('at 800 px the Notes tile shows every button whole; at 360 px one pane shows at a time', async () => {
    await page().setViewportSize({ width: 800, height: 800 })
    const iframe = page().locator('section.tile[data-app="notes"] iframe[data-endpoint]')
    const frame = await frameOf(page(), (await iframe.getAttribute('data-endpoint'))!)
    await expect.poll(() => frame.evaluate(() => {
      const width = document.documentElement.clientWidth
      return [...document.querySelectorAll('button')].filter((b) => b.getBoundingClientRect().right > width + 0.5).map((b) => b.textContent)
    })).toEqual([])

    await page().setViewportSize({ width: 360, height: 740 })
    await page().locator('[data-nav=conversation]').click()
    expect(await page().locator('#agent-panel').isVisible()).toBe(true)
    expect(await page().locator('#workspace').isVisible()).toBe(false)
    await page().locator('[data-nav=apps]').click()
    expect(await page().locator('#workspace').isVisible()).toBe(true)
    expect(await page().locator('#agent-panel').isVisible()).toBe(false)
    expect(await page().evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    expect((await axeCheck(page())).blocking).toEqual([])
    await screenshot('narrow')
    await page().setViewportSize({ width: 1400, height: 900 })
  }, 60_000)

  it('no page load shows UNKNOWN_TOOL: a tile asking its background as both start waits for the tool its manifest declares', async () => {
    for (let load = 0; load < 10; load++) {
      await page().reload()
      await page().waitForFunction(() => 'neutron' in window)
      // The notes tile's first call to its background has been answered, one way or the other.
      await expect.poll(async () => (await audit(page())).some((e) => e.tool === 'notes_list' && e.caller.includes(':tile:')), { timeout: 60_000 }).toBe(true)
      const refused = (await audit(page())).filter((e) => e.code === 'UNKNOWN_TOOL')
      expect(refused, `load ${load}`).toEqual([])
    }
  }, 300_000)
})

describe('a sign-in that lasts', () => {
  it('signs in by keyboard; a reload keeps the person signed in with their tiles, and asks again for a grant given for the page\'s life', async () => {
    await fromTop(page())
    await tabTo(page(), '[data-action=dev-sign-in]')
    await page().keyboard.press('Enter')
    await page().locator('[data-action=sign-out]').waitFor({ timeout: 30_000 })
    await expect.poll(tilesOpen, { timeout: 30_000 }).toEqual(['notes', 'planner'])
    // The person closes the planner and grants planner → notes for the page's life.
    await page().locator('section.tile[data-app="planner"] [data-action=close]').click()
    await page().evaluate(() => (window as any).neutron.kernel.grants.grant({ endpoint: 'app:planner:tile:t9:instance:x', app: 'planner' }, 'notes', 'session'))
    expect(await page().evaluate(() => (window as any).neutron.kernel.grants.sessions().length)).toBe(1)
    const before = await page().evaluate(() => (window as any).neutron.panel.connection.me.id)

    await page().reload()
    await page().waitForFunction(() => !!(window as any).neutron?.panel.connection, undefined, { timeout: 30_000 })
    expect(await page().evaluate(() => (window as any).neutron.panel.connection.me.id)).toBe(before)
    expect(await page().evaluate(() => (window as any).neutron.panel.connection.me.via)).toBe('dev')
    await expect.poll(tilesOpen, { timeout: 30_000 }).toEqual(['notes'])
    expect(await page().evaluate(() => (window as any).neutron.kernel.grants.sessions().length)).toBe(0)
    // The page holds no token in its storage: only the mark that a sign-in may be waiting.
    expect(await page().evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toMatch(/eyJ/)
    await notesShown()
    expect((await axeCheck(page())).blocking).toEqual([])
    await screenshot('signed-in')
  }, 120_000)

  it('the Counter tile shows its count, +1 goes through its backend, and the count is there after a reload', async () => {
    await page().evaluate(async () => {
      const client = (window as any).neutron.panel.connection.client
      const stored = await client.apps.upload(await (await fetch('/packages/counter.json')).json())
      await client.apps.install(stored.hash)
    })
    await page().locator('#installs button', { hasText: 'Refresh' }).click()
    // The installs are read again and the kept tiles reopened; then the person opens the counter.
    await expect.poll(tilesOpen, { timeout: 30_000 }).toEqual(['notes'])
    await page().locator('#launcher [data-open=counter]').click()
    const counter = async () => {
      const iframe = page().locator('section.tile[data-app="counter"] iframe[data-endpoint]')
      await iframe.waitFor({ state: 'attached', timeout: 60_000 })
      return frameOf(page(), (await iframe.getAttribute('data-endpoint'))!)
    }
    const count = async () => Number((await (await counter()).locator('output.count').innerText().catch(() => '')) || NaN)
    await expect.poll(count, { timeout: 60_000 }).toBe(0)
    expect(await page().locator('section.tile[data-app="counter"] .endpoint').innerText()).toMatch(/^app:counter:tile:/)
    await (await counter()).locator('button.increment').click()
    await expect.poll(count, { timeout: 30_000 }).toBe(1)
    await (await counter()).locator('button.increment').focus()
    await page().keyboard.press('Enter')
    await expect.poll(count, { timeout: 30_000 }).toBe(2)

    await page().reload()
    await page().waitForFunction(() => !!(window as any).neutron?.panel.connection, undefined, { timeout: 30_000 })
    await expect.poll(tilesOpen, { timeout: 30_000 }).toEqual(['notes', 'counter'])
    await expect.poll(count, { timeout: 60_000 }).toBe(2)
    expect((await axeCheck(page())).blocking).toEqual([])
    await screenshot('counter')
  }, 180_000)

  it('signing out ends the lasting sign-in: a reload is signed out', async () => {
    await page().locator('[data-action=sign-out]').click()
    await page().locator('[data-action=dev-sign-in]').waitFor()
    await page().waitForResponse((r) => r.url().endsWith('/v1/auth/refresh') && r.request().method() === 'DELETE', { timeout: 10_000 }).catch(() => {})
    await page().reload()
    await page().waitForFunction(() => 'neutron' in window)
    await page().locator('[data-action=dev-sign-in]').waitFor()
    expect(await signedIn()).toBe(false)
    // The cookie is gone too: asking the refresh route directly is refused.
    const res = await page().evaluate(async () => (await fetch('/v1/auth/refresh', { method: 'POST', headers: { 'x-neuron-shell': '1' } })).status)
    expect(res).toBe(401)
  }, 60_000)
})
