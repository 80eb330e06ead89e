/**
 * The whole loop in real Chromium against a real `wrangler dev`: sign in with one click, enable
 * Agent Mode for the Notes app in its tile, prompt a session from the agent panel, the local model
 * calls `notes_search`, the session sends it over the socket, the kernel routes it to the notes
 * background as a root invocation, the answer is settled durably (in `/history`) and shown in the
 * panel. Then the failure paths: a socket dropped mid-call fails the call durably (HOST_GONE) and
 * never re-runs it, the panel resumes after the last event without gaps or repeats, and signing
 * out tears every endpoint down.
 */
import { copyFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PageGestures, gestures } from './support/gestures.ts'
import { ARTIFACTS, TARGET, audit, fixtureState, frameOf, install, openShell, type Shell, trackSockets, waitForEndpoint } from './support/shell.ts'
import { conversationLines } from './support/conversation.ts'

const NOTES_BG = 'app:notes:background'
let shell: Shell
let g: PageGestures
let notesTile: Frame
let notesTileId: string

const page = () => shell.page
const panel = () => page().locator('#agent-panel')
const lines = (kind: string) => conversationLines(page(), kind)
async function prompt(text: string) {
  await panel().locator('[name=prompt]').fill(text)
  await panel().locator('[data-action=send]').click()
}
/** The durable history of the open session, read through the API with the panel's own token. */
const history = (): Promise<{ type: string; payload: any }[]> =>
  page().evaluate(async () => {
    const id = (window as any).neutron.panel.open.id
    const token = (window as any).neutron.panel.connection.authorization.token
    const res = await fetch(`/v1/sessions/${encodeURIComponent(id)}/history?limit=1000`, { headers: { authorization: `Bearer ${token}` } })
    return (await res.json()).items
  })
const sockets = (): Promise<number> => page().evaluate(() => (window as any).__sockets.length)

beforeAll(async () => {
  shell = await openShell()
  await trackSockets(page())
  await waitForEndpoint(page(), NOTES_BG, ['notes_search'])
})
/** The notes tile's frame, once the kernel has bound it. */
async function notesTileFrame(): Promise<Frame> {
  const iframe = page().locator('section.tile[data-app="notes"] iframe[data-endpoint]')
  await iframe.waitFor({ state: 'attached', timeout: 60_000 })
  notesTileId = (await iframe.getAttribute('data-endpoint'))!
  return frameOf(page(), notesTileId)
}
afterAll(async () => {
  await g?.close()
  await shell?.close()
})

describe('the shell talks to sessions, and a session calls a live app', () => {
  it('end to end: sign in, enable Agent Mode for notes, prompt, the model calls notes_search, the result is durable and shown', async () => {
    await panel().locator('[data-action=dev-sign-in]').click()
    await panel().locator('[data-action=sign-out]').waitFor()
    expect(await panel().innerText()).toContain('Signed in as dev (dev)')
    // Signed in, the shell runs the person's installs: the demo apps, installed as packages.
    await waitForEndpoint(page(), NOTES_BG, ['notes_search'])
    notesTile = await notesTileFrame()
    await panel().locator('[data-action=new-session]').click()
    await panel().locator('[data-connection=live]').waitFor()
    const id: string = await page().evaluate(() => (window as any).neutron.panel.open.id)
    expect(await panel().locator('select[data-sessions] option:checked').getAttribute('value')).toBe(id) // listed by GET /v1/sessions

    // A person's click in the tile (support/gestures.ts): the consent is only for a gesture in it.
    g = await gestures(page())
    await g.clickIn(notesTile, notesTileId, 'button.agent-mode')
    await page().waitForSelector('#agent-dialog[open]')
    const allow = page().locator('#agent-dialog [data-agent-decision=allow]')
    await expect.poll(() => allow.isEnabled()).toBe(true)
    await allow.click()
    await expect.poll(() => panel().locator('[data-connection]').innerText()).toContain('offering notes_search')

    await prompt('/tool notes_search {"query":"roadmap"}')
    await expect.poll(() => lines('result'), { timeout: 30_000 }).toEqual([expect.stringContaining('Roadmap Q3')])
    expect(await lines('tool')).toEqual(['notes_search {"query":"roadmap"}'])

    const events = await history()
    const called = events.filter((e) => e.type === 'session.next.tool.called')
    expect(called).toMatchObject([{ payload: { name: 'notes_search', input: { query: 'roadmap' } } }])
    const settled = events.filter((e) => e.type === 'session.next.tool.succeeded')
    expect(settled).toHaveLength(1)
    expect(JSON.parse(settled[0]!.payload.content).matches.map((m: { title: string }) => m.title).sort()).toEqual(['Roadmap Q3', 'Roadmap risks'])
    // the kernel routed it as a root invocation, and audited it
    const entry = (await audit(page())).filter((e: any) => e.caller === 'agent' && e.target === NOTES_BG && e.tool === 'notes_search')
    expect(entry).toHaveLength(1)
    expect((entry[0] as any).root).toMatch(/^root-\d+$/)
    await page().screenshot({ path: resolve(ARTIFACTS, 'agent-mode.png') })
    // The README's screenshot is refreshed on request only: a test run never rewrites tracked files.
    if (process.env.NEURON_UPDATE_SCREENSHOTS === '1') copyFileSync(resolve(ARTIFACTS, 'agent-mode.png'), resolve(import.meta.dirname, '../../docs/agent-mode.png'))
  })

  it('a socket dropped mid-call fails the call durably (HOST_GONE), never re-runs it, and the panel resumes without gaps or repeats', async () => {
    await install(page(), { ...TARGET, agentEntrypoints: ['slow'] })
    await waitForEndpoint(page(), 'app:target:background', ['slow'])
    const target = await frameOf(page(), 'app:target:background')
    await page().evaluate(() => {
      const k = (window as any).neutron.kernel
      const answer = k.agentMode.ask({ app: 'target', version: '1.0.0', title: 'Target', entrypoint: 'slow', endpoint: 'test' })
      k.agentMode.decide(k.agentMode.pending().id, 'allow')
      return answer
    })
    await expect.poll(() => panel().locator('[data-connection]').innerText()).toContain('slow')
    const before = await sockets()
    await prompt('/tool slow {"ms":30000}')
    await expect.poll(() => fixtureState<number>(target, 'calls.slow'), { timeout: 30_000 }).toBe(1)
    // the network drops: the page's socket closes under the panel
    await page().evaluate(() => (window as any).__sockets.at(-1).close())
    await expect.poll(() => lines('error'), { timeout: 30_000 }).toEqual([expect.stringContaining('HOST_GONE')])
    expect(await sockets()).toBe(before + 1) // reconnected once, with a new ticket, after the last event seen
    await expect.poll(() => fixtureState<number>(target, 'cancelled')).toBe(1) // the app was told to stop
    const failed = (await history()).filter((e) => e.type === 'session.next.tool.failed')
    expect(failed).toMatchObject([{ payload: { error: { code: 'HOST_GONE' } } }])

    // the session goes on over the new socket; every durable line appears once
    await prompt('/tool notes_search {"query":"standup"}')
    await expect.poll(() => lines('result'), { timeout: 30_000 }).toHaveLength(2)
    expect(await fixtureState<number>(target, 'calls.slow')).toBe(1) // never re-run
    expect(await lines('you')).toEqual(['/tool notes_search {"query":"roadmap"}', '/tool slow {"ms":30000}', '/tool notes_search {"query":"standup"}'])
    expect(await lines('tool')).toHaveLength(3)
  })

  it('a double click on Interrupt stops the turn shown, never the queued prompt behind it', async () => {
    await prompt('/tool wait {"ms":20000}')
    await prompt('/tool wait {"ms":600}')
    await expect.poll(() => lines('tool'), { timeout: 30_000 }).toContain('wait {"ms":20000}')
    await page().evaluate(async () => {
      const button = document.querySelector<HTMLButtonElement>('#agent-panel [data-action=interrupt]')!
      button.click()
      // The second click of a double click, before anything else has run on the page: the button
      // answers it for the step it already sent (a timer here could fire after the next turn
      // was drawn on a loaded machine, and a click then is a click on that turn).
      button.click()
    })
    await expect.poll(() => lines('result'), { timeout: 30_000 }).toContain('{"waitedMs":600}')
    const events = await history()
    expect(events.filter((e) => e.type === 'session.next.interrupt.requested')).toHaveLength(1)
    expect(events.filter((e) => e.type === 'session.next.tool.cancelled')).toHaveLength(1)
    // Once nothing runs, no Interrupt is offered: a bare stop could reach a later turn.
    await expect.poll(async () => (await history()).at(-1)?.type, { timeout: 30_000 }).toBe('session.next.drain.ended')
    await expect.poll(() => panel().locator('[data-action=interrupt]').isVisible()).toBe(false)
  })

  it('signing out closes the socket, ends Agent Mode and removes every endpoint; signing in brings the apps back', async () => {
    await panel().locator('[data-action=sign-out]').click()
    await panel().locator('[data-action=dev-sign-in]').waitFor()
    expect(await page().evaluate(() => (window as any).neutron.kernel.endpoints.list().length)).toBe(0)
    expect(await page().evaluate(() => (window as any).neutron.kernel.agentMode.enabled().length)).toBe(0)
    expect(await page().evaluate(() => localStorage.getItem('neuron.shell.signed-in'))).toBeNull()
    expect(await page().evaluate(() => (window as any).__sockets.at(-1).readyState)).toBeGreaterThanOrEqual(2) // closing or closed
    // a pasted token that is not one is refused with its code, and nothing signs in
    await panel().locator('textarea[name=token]').fill('not-a-jwt')
    await panel().locator('[data-action=token-sign-in]').click()
    await expect.poll(() => panel().locator('.error').innerText()).toContain('TOKEN_MALFORMED')
    await panel().locator('[data-action=dev-sign-in]').click()
    await panel().locator('[data-action=sign-out]').waitFor()
    await waitForEndpoint(page(), NOTES_BG, ['notes_search'])
  })
})
