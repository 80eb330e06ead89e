/**
 * The orchestrations view inside the shell, in real Chromium against a real `wrangler dev`,
 * signed in like everything else (no token in the URL): signed out it says so; signed in it lists
 * the person's orchestrations and draws one's DAG coloured by beat as the decision stream moves
 * it, with live burn; a package opens its agent's session; cancel asks first and then cancels
 * durably; an unknown id or someone else's orchestration is a page that says so, with no live
 * buttons. Every step is driven from the keyboard, and axe finds no serious or critical violation.
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken } from '../support/wrangler.ts'
import { axeCheck } from './support/axe.ts'
import { tabTo as tabToOn } from './support/keyboard.ts'
import { ARTIFACTS, openShell, type Shell } from './support/shell.ts'

const DOCS = resolve(import.meta.dirname, '../../docs')
const EXAMPLE_PLAN = JSON.parse(readFileSync(join(DOCS, 'examples/plan.json'), 'utf8')) as { goal: string; plan: unknown[] }

let shell: Shell
let page: Page
let token: string
const tabTo = (selector: string) => tabToOn(page, selector)
/** The view reads several API calls per page: a loaded machine needs more than the default second. */
const POLL = { timeout: 15_000 }
const view = () => page.locator('#pane-orchestrations')

beforeAll(async () => {
  shell = await openShell({ demo: false })
  page = shell.page
})
afterAll(async () => {
  await shell?.close()
})

const api = async (path: string, init: RequestInit = {}, as = token) =>
  fetch(`${shell.dev.url}${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${as}`, ...init.headers } })

const work = (name: string, slowMs: number) =>
  [`/beat declare /tool declare {"writes":["file:${name}"]}`, ...(slowMs ? [`/beat execute /slow ${slowMs}`, '/beat execute /tokens 200'] : []), `/beat execute /tool report {"result":"${name} done"}`].join('\n')

async function expectNoBlockingViolations(): Promise<void> {
  const report = await axeCheck(page, '#pane-orchestrations')
  expect(report.blocking).toEqual([])
  expect(report.passes).toBeGreaterThan(0)
}

describe('the orchestrations view in the shell', () => {
  it('signed out says so and offers nothing; signed in, an empty list says what to do', async () => {
    await tabTo('#nav [data-nav=orchestrations]')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => location.hash === '#/orchestrations')
    await expect.poll(() => view().textContent(), POLL).toContain('Sign in to follow your orchestrations')
    expect(await view().locator('button, a').count()).toBe(0)

    await page.click('[data-action="dev-sign-in"]')
    await page.waitForFunction(() => (window as any).neutron.panel.connection, undefined, { timeout: 30_000 })
    // The shell's one-click identity is the dev person `npm run -s token` signs for.
    token = await devToken('dev')
    await view().locator('[data-empty=orchestrations]').waitFor()
    expect(await view().textContent()).toContain('npx neuron run docs/examples/plan.json')
    await expectNoBlockingViolations()
  })

  it('lists the plan it ran, draws it live, and a package opens its agent session', async () => {
    const res = await api('/v1/orchestrations', { method: 'POST', body: JSON.stringify({ id: 'example', ...EXAMPLE_PLAN }) })
    expect(res.status).toBe(201)
    await view().locator('[data-action=refresh]').click()
    await view().locator('li[data-orchestration=example]').waitFor()
    expect(await view().locator('li[data-orchestration=example] a').textContent()).toBe(EXAMPLE_PLAN.goal)

    await tabTo('li[data-orchestration=example] a')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => location.hash === '#/orchestrations/example')
    await view().locator('g.package[data-package=d]').waitFor()
    expect(await view().locator('g.package').count()).toBe(4)
    expect(await view().locator('line.edge').count()).toBe(4)
    // Live: the decision stream moves every package to reported without a reload.
    await page.waitForSelector('#pane-orchestrations [data-orchestration=status][data-status=completed]', { timeout: 60_000 })
    await expect.poll(() => view().locator('g.package[data-beat=reported]').count(), { timeout: 30_000 }).toBe(4)
    expect(await view().locator('[data-action=cancel]').isDisabled()).toBe(true)
    // Polled: a rect replaced between the lookup and the evaluate is detached, whose style reads ''.
    await expect
      .poll(() => view().locator('g.package[data-package=a] rect').evaluate((el) => (el.isConnected ? getComputedStyle(el).fill : 'detached')), POLL)
      .toBe('rgb(211, 249, 216)')

    const session = (await (await api('/v1/orchestrations/example')).json()) as { packages: { id: string; session: string | null }[] }
    const agent = session.packages.find((p) => p.id === 'b')!.session!
    await tabTo(`tr[data-package=b] button[data-action=open-session]`)
    await page.keyboard.press('Enter')
    await page.waitForFunction((id) => (window as any).neutron.panel.open?.id === id && location.hash === `#/conversation/${id}`, agent)
    await page.locator(`#agent-panel [data-session="${agent}"] [data-conversation] .block.turn`).first().waitFor({ timeout: 30_000 })
  })

  it('cancel asks first: kept, nothing is written; confirmed, the run is cancelled durably', async () => {
    const plan = [
      { id: 'a', instructions: work('a', 0) },
      { id: 'b', needs: ['a'], instructions: work('b', 100) },
      { id: 'c', needs: ['a'], instructions: work('c', 100) },
      { id: 'd', needs: ['b', 'c'], instructions: work('d', 0) },
    ]
    expect((await api('/v1/orchestrations', { method: 'POST', body: JSON.stringify({ id: 'view-demo', goal: 'Draw me', plan }) })).status).toBe(201)
    await page.evaluate(() => (location.hash = '#/orchestrations/view-demo'))
    await page.waitForSelector('#pane-orchestrations g.package[data-package=b][data-beat=executing]', { timeout: 30_000 })
    await expect.poll(() => view().locator('[data-orchestration=burn]').textContent(), POLL).toMatch(/^[1-9]\d* tokens/)
    await expectNoBlockingViolations()
    await page.screenshot({ path: join(DOCS, 'shell-orchestrations.png') })
    const control = async () => ((await (await api('/v1/orchestrations/view-demo/history?address=control')).json()) as { items: { payload: { reason: string } }[] }).items

    await tabTo('#pane-orchestrations [data-action=cancel]')
    await page.keyboard.press('Enter')
    await page.locator('dialog.confirm[open]').waitFor()
    // The safe answer has the focus: Enter keeps the run going.
    await page.keyboard.press('Enter')
    await page.locator('dialog.confirm').waitFor({ state: 'detached' })
    expect(await control()).toEqual([])
    expect(await view().locator('[data-orchestration=status]').getAttribute('data-status')).toBe('running')

    await tabTo('#pane-orchestrations [data-action=cancel]')
    await page.keyboard.press('Enter')
    await page.locator('dialog.confirm[open]').waitFor()
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Enter')
    await page.waitForSelector('#pane-orchestrations [data-orchestration=status][data-status=cancelled]', { timeout: 30_000 })
    await expect.poll(() => view().locator('g.package[data-beat=cancelled]').count(), POLL).toBe(3)
    expect(await view().locator('[data-action=cancel]').isDisabled()).toBe(true)
    expect((await control()).map((e) => e.payload.reason)).toEqual(['cancelled from the shell'])
    await page.screenshot({ path: join(ARTIFACTS, 'shell-orchestration-cancelled.png') })
    // A reload lands on the same orchestration, still signed in, with no token in the URL.
    await page.reload()
    await page.waitForSelector('#pane-orchestrations [data-orchestration=status][data-status=cancelled]', { timeout: 30_000 })
    expect(page.url()).not.toContain('token')
  })

  it("an unknown id or someone else's orchestration is a page that says so, with no live buttons", async () => {
    const stranger = await devToken('stranger')
    expect((await api('/v1/orchestrations', { method: 'POST', body: JSON.stringify({ id: 'not-yours', ...EXAMPLE_PLAN }) }, stranger)).status).toBe(201)
    for (const [id, code] of [['no-such-run', 'ORCHESTRATION_NOT_FOUND'], ['not-yours', 'ORCHESTRATION_NOT_FOUND'], ['not valid!', 'INVALID_ORCHESTRATION_ID']] as const) {
      await page.evaluate((id) => (location.hash = `#/orchestrations/${encodeURIComponent(id)}`), id)
      await view().locator(`[data-problem=${code}]`).waitFor()
      expect(await view().textContent()).toContain(`No orchestration “${id}”`)
      expect(await view().locator('button').count()).toBe(0)
      expect(await view().locator('a').getAttribute('href')).toBe('#/orchestrations')
    }
    await expectNoBlockingViolations()
    // Nobody else's orchestration is listed.
    await page.evaluate(() => (location.hash = '#/orchestrations'))
    await view().locator('li[data-orchestration=view-demo]').waitFor()
    expect(await view().locator('li[data-orchestration=not-yours]').count()).toBe(0)
    // At 360 px the page does not scroll sideways: a wide plan scrolls inside its own box.
    await page.setViewportSize({ width: 360, height: 740 })
    await page.evaluate(() => (location.hash = '#/orchestrations/view-demo'))
    await view().locator('g.package[data-package=d]').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.screenshot({ path: join(ARTIFACTS, 'shell-orchestration-360.png') })
    await page.setViewportSize({ width: 1400, height: 900 })
    expect(shell.errors).toEqual([])
  })
})
