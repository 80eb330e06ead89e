/**
 * The conversation view while a 10,000-token turn streams, in real Chromium against a real
 * `wrangler dev` and the local model (`/tokens 10000`): the trusted page's long tasks, observed
 * with a `longtask` PerformanceObserver from the prompt to the turn's usage line.
 *
 * The limit: 50 ms, the long-task threshold itself (a task the browser reports as long is one
 * over 50 ms; RAIL's budget for staying responsive to input). The ratio printed is the longest
 * task over that threshold, per round; under 1.0× means no long task at all. Three rounds, each a
 * fresh session, so one slow round on a loaded machine shows as one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { openShell, type Shell } from '../../test/browser/support/shell.ts'

const LONG_TASK_MS = 50
const ROUNDS = 3
let shell: Shell
let client: NeuronClient

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await shell.page.locator('[data-action=dev-sign-in]').click()
  await shell.page.locator('[data-action=sign-out]').waitFor({ timeout: 30_000 })
  const res = await fetch(`${shell.dev.url}/v1/dev/token`, { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })
  client = new NeuronClient({ url: shell.dev.url, token: ((await res.json()) as { token: string }).token })
})
afterAll(() => shell?.close())

describe('conversation streaming', () => {
  it('the longest task on the trusted page while 10,000 tokens stream, against the 50 ms long-task threshold', async () => {
    const page = shell.page
    const conversation = page.locator('#agent-panel [data-conversation]')
    const longest: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await client.createSession({ title: `stream bench ${round}` })
      await page.evaluate((id) => (window as any).neutron.panel.openSession(id), id)
      await page.locator('#agent-panel [data-connection=live]').waitFor({ timeout: 30_000 })
      await page.evaluate(() => {
        const tasks: number[] = ((window as any).__longTasks = [])
        new PerformanceObserver((list) => list.getEntries().forEach((e) => tasks.push(e.duration))).observe({ type: 'longtask', buffered: false })
      })
      const started = performance.now()
      await conversation.locator('[name=prompt]').fill('/tokens 10000')
      await conversation.locator('[data-action=send]').click()
      await expect.poll(() => page.locator('#agent-panel [data-turn-usage]').last().innerText(), { timeout: 150_000, interval: 250 }).toMatch(/^Turn: 1 step/)
      const tasks: number[] = await page.evaluate(() => (window as any).__longTasks)
      const max = Math.max(0, ...tasks)
      longest.push(max)
      console.log(`round ${round + 1}: ${Math.round(performance.now() - started)} ms to stream; long tasks ${JSON.stringify(tasks.map(Math.round))}; longest ${(max / LONG_TASK_MS).toFixed(2)}× the threshold`)
    }
    const median = [...longest].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!
    console.log(`median longest task: ${median.toFixed(0)} ms = ${(median / LONG_TASK_MS).toFixed(2)}× the ${LONG_TASK_MS} ms threshold (rounds: ${longest.map((m) => (m / LONG_TASK_MS).toFixed(2)).join(', ')})`)
    // The target is none at all; the bound asserted is the median round's longest task within 1.5× the
    // threshold, so a loaded machine's one slow layout does not fail the run while a regression to
    // re-rendering the whole answer per token (seconds) does.
    expect(median / LONG_TASK_MS).toBeLessThanOrEqual(1.5)
  })
})
