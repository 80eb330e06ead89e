/**
 * The memory view inside the shell, in real Chromium against a real `wrangler dev`: the signed-in
 * person's memories (remembered through the API and by an agent's tool in a session), each with
 * where it came from (an agent's session opens from it); recall by words; forget, which asks for
 * a reason first and then stops recall returning the memory while the graph's history keeps it.
 * Driven from the keyboard; axe finds no serious or critical violation.
 */
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken } from '../support/wrangler.ts'
import { axeCheck } from './support/axe.ts'
import { tabTo as tabToOn } from './support/keyboard.ts'
import { openShell, type Shell } from './support/shell.ts'

const DOCS = resolve(import.meta.dirname, '../../docs')

let shell: Shell
let page: Page
let token: string
const tabTo = (selector: string) => tabToOn(page, selector)
/** The view reads several API calls per page: a loaded machine needs more than the default second. */
const POLL = { timeout: 15_000 }
const view = () => page.locator('#pane-memory')

beforeAll(async () => {
  shell = await openShell({ demo: false })
  page = shell.page
})
afterAll(async () => {
  await shell?.close()
})

const api = async (path: string, body?: unknown) =>
  fetch(`${shell.dev.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

describe('the memory view in the shell', () => {
  it('signed out says so; signed in, an empty memory says what to do', async () => {
    await tabTo('#nav [data-nav=memory]')
    await page.keyboard.press('Enter')
    await expect.poll(() => view().textContent(), POLL).toContain('Sign in to browse what your agents remember')
    expect(await view().locator('button, input').count()).toBe(0)
    await page.click('[data-action="dev-sign-in"]')
    await page.waitForFunction(() => (window as any).neutron.panel.connection, undefined, { timeout: 30_000 })
    // The shell's one-click identity is the dev person `npm run -s token` signs for.
    token = await devToken('dev')
    await expect.poll(() => view().locator('[data-memory-status]').textContent(), POLL).toContain('No memories yet')
  })

  it('browses memories with where each came from, and an agent memory opens its session', async () => {
    expect((await api('/v1/memory/remember', { text: 'Ada prefers metric units', pinned: true })).status).toBe(201)
    expect((await api('/v1/memory/remember', { text: 'The staging database is rebuilt every Sunday' })).status).toBe(201)
    expect((await api('/v1/sessions', { id: 'monday' })).status).toBe(201)
    await api('/v1/sessions/monday/prompt', { text: '/tool memory_remember {"text":"the deploy window is Thursday 14:00 UTC"}' })
    await expect.poll(async () => ((await (await api('/v1/memory/recall', { query: 'deploy window' })).json()) as { items: unknown[] }).items.length, { timeout: 30_000 }).toBe(1)

    await tabTo('#pane-memory [data-action=browse]')
    await page.keyboard.press('Enter')
    await expect.poll(() => view().locator('li.memory').count(), POLL).toBe(3)
    const pinned = view().locator('li.memory[data-type=pins]')
    expect(await pinned.locator('.text').textContent()).toBe('Ada prefers metric units')
    expect(await pinned.textContent()).toContain('Remembered through the API by you')
    const agents = view().locator('li.memory', { hasText: 'deploy window' })
    expect(await agents.textContent()).toContain('Remembered by an agent in session monday')
    // Its source, the monday conversation, resolves to the session too.
    await agents.locator('[data-source="node.conversation.monday"] button[data-session=monday]').waitFor()
    expect(await axeCheck(page, '#pane-memory').then((r) => r.blocking)).toEqual([])
    await page.screenshot({ path: join(DOCS, 'shell-memory.png') })

    await tabTo('#pane-memory li.memory button[data-action=open-session][data-session=monday]')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => (window as any).neutron.panel.open?.id === 'monday' && location.hash === '#/conversation/monday')
  })

  it('recalls by words, best first', async () => {
    await page.evaluate(() => (location.hash = '#/memory'))
    await tabTo('#pane-memory input[type=search]')
    await page.keyboard.type('metric units')
    await page.keyboard.press('Enter')
    await expect.poll(() => view().locator('[data-memory-status]').textContent(), POLL).toContain('1 recalled for “metric units”')
    expect(await view().locator('li.memory .text').allTextContents()).toEqual(['Ada prefers metric units'])
    await page.keyboard.press('Control+A')
    await page.keyboard.type('nothing like this')
    await page.keyboard.press('Enter')
    await expect.poll(() => view().locator('[data-memory-status]').textContent(), POLL).toContain('Nothing recalled')
    expect(await view().locator('li.memory').count()).toBe(0)
  })

  it('forget asks for a reason first: kept, nothing changes; confirmed, recall no longer returns it', async () => {
    await tabTo('#pane-memory [data-action=browse]')
    await page.keyboard.press('Enter')
    await expect.poll(() => view().locator('li.memory').count(), POLL).toBe(3)
    const staging = 'button[data-action=forget][aria-label^="Forget: The staging database"]'
    await tabTo(`#pane-memory ${staging}`)
    await page.keyboard.press('Enter')
    await page.locator('dialog.confirm[open]').waitFor()
    expect(await axeCheck(page, 'dialog.confirm').then((r) => r.blocking)).toEqual([])
    await page.keyboard.press('Enter') // the focused answer keeps it
    await page.locator('dialog.confirm').waitFor({ state: 'detached' })
    const memoryNode = async () => ((await (await api('/v1/graph/nodes/node.memory.main')).json()) as { history: { retired: { reason: string } | null }[] }).history
    expect((await memoryNode()).some((e) => e.retired)).toBe(false)

    await tabTo(`#pane-memory ${staging}`)
    await page.keyboard.press('Enter')
    await page.locator('dialog.confirm[open] input[name=reason]').fill('the rebuild moved to Saturdays')
    await page.locator('dialog.confirm[open] [data-action=confirm]').focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => view().locator('li.memory').count(), POLL).toBe(2)
    expect(await view().locator('li.memory:has-text("staging database")').count()).toBe(0)
    expect(((await (await api('/v1/memory/recall', { query: 'staging database' })).json()) as { items: unknown[] }).items).toEqual([])
    expect((await memoryNode()).flatMap((e) => (e.retired ? [e.retired.reason] : []))).toEqual(['the rebuild moved to Saturdays'])
  })

  it('pages: twenty at a time, and Show more brings the rest', async () => {
    for (let i = 1; i <= 22; i++) expect((await api('/v1/memory/remember', { text: `fact number ${i} about paging` })).status).toBe(201)
    await tabTo('#pane-memory [data-action=browse]')
    await page.keyboard.press('Enter')
    await expect.poll(() => view().locator('li.memory').count(), POLL).toBe(20)
    expect(await view().locator('[data-memory-status]').textContent()).toBe('20 memories so far')
    await tabTo('#pane-memory [data-action=more]')
    await page.keyboard.press('Enter')
    // The two left after the forget, and the 22 new ones.
    await expect.poll(() => view().locator('li.memory').count(), POLL).toBe(24)
    expect(await view().locator('[data-action=more]').isHidden()).toBe(true)
    expect(await view().locator('li.memory .text').last().textContent()).toBe('fact number 22 about paging')
    expect(shell.errors).toEqual([])
  })
})
