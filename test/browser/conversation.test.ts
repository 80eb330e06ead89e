/**
 * The conversation view in real Chromium against a real `wrangler dev` and the local model:
 * Markdown answers rendered and sanitized (no raw HTML, no script links, code blocks with Copy),
 * tool cards with input and output, file changes as diffs in the turn that made them and the
 * workspace tree beside, an approval answered inline, the running indicator's Interrupt naming
 * the step it shows, queued prompts, tokens and cost, failed turns explained; a reload and a
 * dropped network mid-turn show what a page that never left shows; a 5,000-event session scrolls
 * back to its start; a 10,000-token turn drawn whole (its long tasks: bench/node/conversation.bench.ts);
 * memory bounded over 100 turns.
 */
import { copyFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { axeCheck } from './support/axe.ts'
import { ARTIFACTS, openShell, type Shell, trackSockets } from './support/shell.ts'

let shell: Shell
let client: NeuronClient

const page = () => shell.page
const conversation = (p: Page = page()) => p.locator('#agent-panel [data-conversation]')
/** Everything the conversation holds as text (blocks out of view are not laid out, so not innerText). */
const blocksText = (p: Page = page()) => conversation(p).locator('.blocks').evaluate((el) => el.textContent ?? '')

async function prompt(text: string, p: Page = page()) {
  await conversation(p).locator('[name=prompt]').fill(text)
  await conversation(p).locator('[data-action=send]').click()
}
/** A new session, opened in the panel. */
async function openNew(p: Page = page()): Promise<string> {
  const { id } = await client.createSession({ title: 'conversation test' })
  await p.evaluate((id) => (window as any).neutron.panel.openSession(id), id)
  await p.locator('#agent-panel [data-connection=live]').waitFor({ timeout: 30_000 })
  return id
}
const idle = (id: string, timeout = 60_000) => expect.poll(async () => (await client.session(id).view()).status, { timeout, interval: 200 }).toBe('idle')
/** A second page, in its own browser context, signed in as the same person, that opens `id` as a fresh load does. */
async function freshPage(id: string): Promise<{ page: Page; context: BrowserContext }> {
  const context = await shell.browser.newContext({ viewport: { width: 1400, height: 900 } })
  const fresh = await context.newPage()
  await fresh.goto(`${shell.dev.url}/?demo=0`)
  await fresh.locator('[data-action=dev-sign-in]').click()
  await fresh.locator('[data-action=sign-out]').waitFor({ timeout: 30_000 })
  await fresh.evaluate((id) => (window as any).neutron.panel.openSession(id), id)
  await fresh.locator('#agent-panel [data-connection=live]').waitFor({ timeout: 30_000 })
  return { page: fresh, context }
}
/** Waits until the page's conversation shows the same blocks as `other` (a fold, so it converges). */
async function sameAs(p: Page, other: Page) {
  await expect.poll(async () => (await blocksText(p)) === (await blocksText(other)), { timeout: 30_000, interval: 250 }).toBe(true)
}

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await shell.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shell.dev.url })
  await trackSockets(page())
  await page().locator('[data-action=dev-sign-in]').click()
  await page().locator('[data-action=sign-out]').waitFor({ timeout: 30_000 })
  // The test's own client signs in as the same local dev identity the page did.
  const res = await fetch(`${shell.dev.url}/v1/dev/token`, { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })
  client = new NeuronClient({ url: shell.dev.url, token: ((await res.json()) as { token: string }).token })
})
afterAll(async () => {
  await shell?.close()
})

describe('the conversation view', () => {
  it('renders Markdown safely, with Copy on code blocks; tool calls are cards; tokens per turn and for the session', async () => {
    const id = await openNew()
    const hostile = [
      '/say # Plan',
      '/say **bold** and `inline` <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>',
      '/say [bad](javascript:window.__pwned=3) [good](https://example.com/docs)',
      '/say ```js',
      '/say const answer = 42',
      '/say ```',
    ].join('\n')
    await prompt(hostile)
    const markdown = conversation().locator('.block.text .markdown').last()
    await markdown.locator('h1').waitFor({ timeout: 30_000 })
    expect(await markdown.locator('strong').innerText()).toBe('bold')
    expect(await markdown.locator('code').first().innerText()).toBe('inline')
    expect(await conversation().locator('img, script, iframe').count()).toBe(0)
    expect(await markdown.innerText()).toContain('<img src=x') // the raw HTML is shown as text
    expect(await markdown.locator('a', { hasText: 'bad' }).getAttribute('href')).toBeNull()
    const good = markdown.locator('a', { hasText: 'good' })
    expect(await good.getAttribute('href')).toBe('https://example.com/docs')
    expect(await good.getAttribute('rel')).toBe('noopener noreferrer')
    expect(await page().evaluate(() => (window as any).__pwned)).toBeUndefined()
    await markdown.locator('[data-action=copy-code]').click()
    await expect.poll(() => markdown.locator('[data-action=copy-code]').innerText()).toBe('Copied')
    expect(await page().evaluate(() => navigator.clipboard.readText())).toBe('const answer = 42\n')

    await prompt('/tool calculator {"expression":"2+3"}')
    const card = conversation().locator('[data-block=tool][data-tool=calculator]')
    await card.locator('[data-tool-state=succeeded]').waitFor({ timeout: 30_000 })
    await idle(id)
    // By keyboard: the card's summary opens it.
    await card.locator('summary').focus()
    await page().keyboard.press('Enter')
    expect(await card.locator('.tool-input').innerText()).toContain('"expression": "2+3"')
    expect(await card.locator('.tool-output').innerText()).toContain('5')

    // Each turn's tokens are its steps' sum; the session's are the session view's (the API's fold).
    const view = await client.session(id).view()
    expect(view.usage.outputTokens).toBeGreaterThan(0)
    const history = (await client.session(id).history({ limit: 1000 })).items
    const ended = history.filter((e) => e.type === 'session.next.step.ended').map((e) => (e.payload as any).usage)
    expect(view.usage.outputTokens).toBe(ended.reduce((n, u) => n + (u?.outputTokens ?? 0), 0))
    await expect.poll(() => conversation().locator('[data-session-usage]').innerText()).toBe(`Session: ${view.usage.inputTokens.toLocaleString('en')} in · ${view.usage.outputTokens.toLocaleString('en')} out tokens · $0`)
    const turns = await conversation().locator('[data-turn-usage]').allInnerTexts()
    expect(turns).toHaveLength(2)
    expect(turns[1]).toMatch(/^Turn: 2 steps · [\d,]+ in · [\d,]+ out tokens · \$0$/)

    const report = await axeCheck(page(), '#agent-panel')
    expect(report.blocking).toEqual([])
    expect(report.passes).toBeGreaterThan(10)
    await page().screenshot({ path: resolve(ARTIFACTS, 'shell-conversation.png') })
    if (process.env.NEURON_UPDATE_SCREENSHOTS === '1') copyFileSync(resolve(ARTIFACTS, 'shell-conversation.png'), resolve(import.meta.dirname, '../../docs/shell-conversation.png'))
  })

  it('a write asks inline, is allowed from the card, and its diff shows in its turn; the workspace lists and shows the file', async () => {
    const id = await openNew()
    await prompt('/tool write {"path":"src/notes.md","content":"one\\ntwo\\nthree\\n"}')
    const ask = conversation().locator('article.permission[data-state=pending]')
    await ask.waitFor({ timeout: 30_000 })
    await ask.locator('[data-answer=always]').click()
    await conversation().locator('article.permission[data-state=always]').waitFor({ timeout: 30_000 })
    await idle(id)
    await prompt('/tool write {"path":"src/notes.md","content":"one\\n2\\nthree\\nfour\\n"}')
    await expect.poll(() => conversation().locator('[data-block=tool][data-tool=write] [data-tool-state=succeeded]').count(), { timeout: 30_000 }).toBe(2)
    await idle(id)
    const second = conversation().locator('[data-block=tool][data-tool=write]').nth(1)
    await second.locator('summary').click()
    const diff = second.locator('[data-tool-changes] pre.diff')
    await diff.waitFor({ timeout: 30_000 })
    expect((await diff.locator('del').allInnerTexts()).map((t) => t.trim())).toEqual(['- two'])
    expect((await diff.locator('ins').allInnerTexts()).map((t) => t.trim())).toEqual(['+ 2', '+ four'])
    const first = conversation().locator('[data-block=tool][data-tool=write]').first()
    await first.locator('summary').click()
    await expect.poll(() => first.locator('[data-tool-changes] ins').count(), { timeout: 30_000 }).toBe(3) // a new file: every line added
    // The tree and the file view, read through the workspace API.
    const file = conversation().locator('[data-file-tree] button[data-path="src/notes.md"]')
    await file.waitFor({ timeout: 30_000 })
    await file.focus()
    await page().keyboard.press('Enter')
    await expect.poll(() => conversation().locator('[data-file-view] pre').innerText()).toBe('one\n2\nthree\nfour\n')
    expect((await axeCheck(page(), '#agent-panel')).blocking).toEqual([])
    await second.scrollIntoViewIfNeeded()
    await conversation().screenshot({ path: resolve(ARTIFACTS, 'shell-workspace.png') })
    if (process.env.NEURON_UPDATE_SCREENSHOTS === '1') copyFileSync(resolve(ARTIFACTS, 'shell-workspace.png'), resolve(import.meta.dirname, '../../docs/shell-workspace.png'))
  })

  it('a request still waiting from before the window the socket replays is shown, and answerable', async () => {
    const id = await openNew()
    await prompt('/tool write {"path":"old.txt","content":"x"}')
    await conversation().locator('article.permission[data-state=pending]').waitFor({ timeout: 30_000 })
    const session = client.session(id)
    for (let i = 0; i < 320; i++) await session.prompt(`queued ${i}`) // 320 events after the request
    await page().reload()
    await page().locator('#agent-panel [data-connection=live]').waitFor({ timeout: 30_000 })
    const first = (await session.history({ limit: 5 })).items.at(-1)!.seq
    expect(await page().evaluate(() => (window as any).neutron.panel.open.conversation.fold.first)).toBeGreaterThan(first) // the request's event is not in the window
    const card = conversation().locator('article.permission[data-state=pending]')
    await card.waitFor({ timeout: 30_000 })
    expect(await card.innerText()).toContain('old.txt')
    // The queued prompts the window holds show (older ones page in with the history above).
    expect(await conversation().locator('.queued li').count()).toBe(300)
    await card.locator('[data-answer=reject]').click()
    await conversation().locator('article.permission[data-state=reject]').waitFor({ timeout: 30_000 })
  })

  it('the running indicator interrupts the step it shows; a queued prompt shows, then runs; a failed turn says what to do', async () => {
    const id = await openNew()
    await prompt('/tool wait {"ms":20000}')
    const running = conversation().locator('[data-running]')
    await expect.poll(() => running.innerText(), { timeout: 30_000 }).toContain('calling wait')
    await prompt('/say after the wait')
    await expect.poll(() => conversation().locator('.queued li').allInnerTexts()).toEqual([expect.stringMatching(/^(Queued|Steering): \/say after the wait$/)])
    const step = await conversation().locator('[data-action=interrupt]').getAttribute('data-step')
    expect(step).toBeTruthy()
    await conversation().locator('[data-action=interrupt]').focus()
    await page().keyboard.press('Enter')
    await conversation().locator('[data-notice=interrupted]').waitFor({ timeout: 30_000 })
    const requested = (await client.session(id).history({ limit: 1000 })).items.filter((e) => e.type === 'session.next.interrupt.requested')
    expect(requested).toMatchObject([{ payload: { step } }])
    await expect.poll(() => blocksText(), { timeout: 30_000 }).toContain('after the wait')
    expect(await conversation().locator('.queued li').count()).toBe(0)
    await idle(id)
    expect(await running.isVisible()).toBe(false)

    await prompt('/fail 401 the key was revoked')
    const failed = conversation().locator('[data-notice=failed]')
    await failed.waitFor({ timeout: 30_000 })
    expect(await failed.innerText()).toMatch(/The model call failed[\s\S]*401|revoked/)
    expect(await failed.locator('.advice').innerText()).not.toBe('')
    expect((await axeCheck(page(), '#agent-panel')).blocking).toEqual([])
  })

  it('a reload mid-turn and a dropped network mid-turn show exactly what a page that never left shows', async () => {
    const id = await openNew()
    const { page: witness, context } = await freshPage(id)
    try {
      await prompt('/slow 15\n/tokens 600')
      await expect.poll(() => conversation().locator('.block.text[data-streaming]').count(), { timeout: 30_000 }).toBe(1)
      await page().reload()
      await page().locator('#agent-panel [data-connection=live]').waitFor({ timeout: 30_000 })
      await expect.poll(() => conversation().locator('.block.text[data-streaming]').count(), { timeout: 30_000 }).toBe(1) // still mid-turn
      // While it streams, the reloaded page and the page that never left converge on the same text.
      await sameAs(page(), witness)
      await idle(id)
      await sameAs(page(), witness)
      expect(await blocksText()).toContain('Turn: 1 step')

      await prompt('/slow 15\n/tokens 600')
      await expect.poll(() => conversation().locator('.block.text[data-streaming]').count(), { timeout: 30_000 }).toBe(1)
      await page().context().setOffline(true)
      await page().evaluate(() => (window as any).__sockets.at(-1).close()) // the dropped network ends the socket
      await expect.poll(() => page().locator('#agent-panel [data-connection]').innerText(), { timeout: 10_000 }).not.toBe('')
      await page().context().setOffline(false)
      await idle(id)
      await sameAs(page(), witness)
      const text = await blocksText()
      expect(text.match(/Turn: 1 step/g)).toHaveLength(2)
    } finally {
      await context.close()
    }
  })

  it('a 5,000-event session scrolls back to its start, a page at a time', async () => {
    const { id } = await client.createSession({ title: 'long' })
    const session = client.session(id)
    const calls = Array.from({ length: 50 }, (_, i) => `/tool calculator {"expression":"${i}+1"}`).join('\n')
    await session.prompt('first prompt of the long session')
    for (let i = 0; i < 46; i++) await session.prompt(calls)
    await idle(id, 180_000)
    const total = (await session.view()).counts.events
    expect(total).toBeGreaterThanOrEqual(5_000)
    await page().evaluate((id) => (window as any).neutron.panel.openSession(id), id)
    await page().locator('#agent-panel [data-connection=live]').waitFor({ timeout: 30_000 })
    const windowSize = () => page().evaluate(() => (window as any).neutron.panel.open.conversation.fold.size)
    expect(await windowSize()).toBeLessThanOrEqual(301) // the socket began near the end
    expect(await blocksText()).not.toContain('first prompt of the long session')
    const log = conversation().locator('.conversation-log')
    const started = Date.now()
    for (let i = 0; i < 200 && !(await page().evaluate(() => (window as any).neutron.panel.open.conversation.atStart)); i++) {
      await log.evaluate((el) => el.scrollTo({ top: 0 }))
      await page().waitForTimeout(50) // scrolling, as a person does; the end state is polled below
    }
    await expect.poll(() => page().evaluate(() => (window as any).neutron.panel.open.conversation.atStart), { timeout: 30_000 }).toBe(true)
    console.log(`history: ${total} events paged in to the start in ${Date.now() - started} ms`)
    await expect.poll(() => blocksText(), { timeout: 30_000 }).toContain('first prompt of the long session')
    expect(await windowSize()).toBe(total)
    expect(await conversation().locator('[data-action=load-earlier]').isVisible()).toBe(false)
    expect(await conversation().locator('[data-block=tool]').count()).toBe(46 * 50)
  }, 400_000)

  it('a 10,000-token turn streams into one answer, every token of it drawn', async () => {
    await openNew()
    await prompt('/tokens 10000')
    await expect.poll(() => page().locator('#agent-panel [data-turn-usage]').last().innerText(), { timeout: 150_000, interval: 500 }).toMatch(/^Turn: 1 step/)
    // Its long tasks are measured in bench/node/conversation.bench.ts, not asserted on time here.
    expect(await conversation().locator('.block.text .markdown').last().innerText()).toMatch(/(\S+\s+){9999}\S+/)
  }, 180_000)

  it('memory stays bounded while 100 turns stream', async () => {
    const id = await openNew()
    const cdp = await page().context().newCDPSession(page())
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage')
      return ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize
    }
    const turn = Array.from({ length: 20 }, (_, i) => `/tool calculator {"expression":"${i}*2"}`).join('\n')
    const samples: number[] = []
    for (let i = 1; i <= 100; i++) {
      await client.session(id).prompt(i % 2 ? '/tokens 300' : turn)
      if (i % 20 === 0) {
        await idle(id, 120_000)
        await expect.poll(() => page().evaluate(() => (window as any).neutron.panel.open.conversation.fold.last), { timeout: 30_000 }).toBe((await client.session(id).view()).lastSequence)
        samples.push(await heap())
      }
    }
    const size = await page().evaluate(() => (window as any).neutron.panel.open.conversation.fold.size)
    const blocks = await conversation().locator('.blocks > *').count()
    console.log(`100 turns: heap after GC every 20 turns (MB) ${samples.map((b) => (b / 1e6).toFixed(1)).join(', ')}; window ${size} events, ${blocks} blocks`)
    expect(size).toBeLessThanOrEqual(1_500)
    expect(samples.at(-1)! - samples[2]!).toBeLessThan(2e6) // once the window is full (by turn 60), the heap does not grow with the turns
  }, 400_000)
})
