/**
 * The orchestration view in real Chromium against a real `wrangler dev`: the
 * DAG drawn from the API, packages coloured by beat as the decision stream
 * moves them, live burn, and a cancel button that cancels durably.
 * Screenshots land in test-results/browser/.
 */
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'
import { ARTIFACTS, launchChromium } from './support/shell.ts'

let dev: Wrangler
let browser: Browser
let token: string

beforeAll(async () => {
  dev = await startWrangler()
  browser = await launchChromium()
  token = await devToken()
})
afterAll(async () => {
  await browser?.close()
  await dev?.stop()
})

const work = (name: string, slowMs: number) =>
  [`/beat declare /tool declare {"writes":["file:${name}"]}`, ...(slowMs ? [`/beat execute /slow ${slowMs}`, '/beat execute /tokens 200'] : []), `/beat execute /tool report {"result":"${name} done"}`].join('\n')

describe('the orchestration view', () => {
  it('draws the DAG coloured by beat with live burn, and its cancel button cancels the run', async () => {
    const plan = [
      { id: 'a', instructions: work('a', 0) },
      { id: 'b', needs: ['a'], instructions: work('b', 100) },
      { id: 'c', needs: ['a'], instructions: work('c', 100) },
      { id: 'd', needs: ['b', 'c'], instructions: work('d', 0) },
    ]
    const res = await fetch(`${dev.url}/v1/orchestrations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ id: 'view-demo', goal: 'Draw me', plan }),
    })
    expect(res.status).toBe(201)
    const page = await browser.newPage({ viewport: { width: 1000, height: 420 } })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(`${dev.url}/orchestration?id=view-demo#token=${token}`)
    await page.waitForSelector('g.package[data-package=d]')
    expect(await page.locator('g.package').count()).toBe(4)
    expect(await page.locator('line.edge').count()).toBe(4)
    // Live: the stream moves a to reported and b, c to executing without a reload.
    await page.waitForSelector('g.package[data-package=a][data-beat=reported]', { timeout: 30_000 })
    await page.waitForSelector('g.package[data-package=b][data-beat=executing]', { timeout: 30_000 })
    await page.waitForSelector('g.package[data-package=c][data-beat=executing]', { timeout: 30_000 })
    await expect.poll(() => page.locator('#burn').textContent()).toMatch(/^[1-9]\d* tokens/)
    // Polled: the view redraws the graph on every decision, and a rect replaced between the
    // locator's lookup and the evaluate is detached, whose computed style reads ''.
    await expect
      .poll(() => page.locator('g.package[data-package=a] rect').evaluate((el) => (el.isConnected ? getComputedStyle(el).fill : 'detached')))
      .toBe('rgb(211, 249, 216)')
    await page.screenshot({ path: join(ARTIFACTS, 'orchestration-running.png') })

    await page.click('#cancel')
    await page.waitForSelector('#status[data-status=cancelled]', { timeout: 30_000 })
    await page.waitForSelector('g.package[data-package=b][data-beat=cancelled]')
    await expect.poll(() => page.locator('g.package[data-beat=cancelled]').count()).toBe(3)
    expect(await page.locator('#cancel').isDisabled()).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'orchestration-cancelled.png') })
    // The cancel was durable: the control address holds the entry the button made.
    const control = (await (await fetch(`${dev.url}/v1/orchestrations/view-demo/history?address=control`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      items: { payload: { reason: string } }[]
    }
    expect(control.items.map((e) => e.payload.reason)).toEqual(['cancelled from the shell'])
    expect(errors).toEqual([])
    await page.close()
  })
})
