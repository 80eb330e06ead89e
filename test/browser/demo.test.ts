/**
 * The demo apps as a person uses them: clicks in real Chromium against the
 * shell `wrangler dev` serves. Screenshots land in test-results/browser/.
 */
import { join } from 'node:path'
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PageGestures, gestures } from './support/gestures.ts'
import { ARTIFACTS, audit, frameOf, liveEndpoints, openShell, type Shell, waitForEndpoint } from './support/shell.ts'

let shell: Shell
let g: PageGestures
let notes: Frame
let notesTile: string
let planner: Frame
let plannerTile: string
const NOTES_BG = 'app:notes:background'

/** Waits for the live endpoint whose id starts with `prefix`. */
const endpointOf = (prefix: string): Promise<string> =>
  shell.page
    .waitForFunction((p) => (window as any).neutron.kernel.endpoints.list().find((e: { id: string }) => e.id.startsWith(p))?.id, prefix, { timeout: 20_000 })
    .then((handle) => handle.jsonValue() as Promise<string>)

beforeAll(async () => {
  shell = await openShell()
  await waitForEndpoint(shell.page, NOTES_BG, ['notes_search', 'notes_list', 'notes_add', 'notes_import'])
  notes = await frameOf(shell.page, (notesTile = await endpointOf('app:notes:tile:t1:')))
  planner = await frameOf(shell.page, (plannerTile = await endpointOf('app:planner:tile:t2:')))
  g = await gestures(shell.page)
})
afterAll(async () => {
  await g?.close()
  await shell?.close()
})

describe('demo apps through the UI', () => {
  it('notes: search, and a long import with a live progress bar', async () => {
    await notes.waitForSelector('ul.notes li')
    expect(await notes.locator('ul.notes li').count()).toBe(6)
    await notes.fill('input[name=q]', 'roadmap')
    await notes.click('form button[type=submit]')
    await expect.poll(() => notes.locator('ul.results li').allTextContents()).toEqual([
      expect.stringContaining('Roadmap risks'),
      expect.stringContaining('Roadmap Q3'),
    ])

    await notes.evaluate(() => {
      const seen: string[] = ((globalThis as any).statusSeen = [])
      new MutationObserver(() => seen.push(document.querySelector('.status')!.textContent!)).observe(document.querySelector('.status')!, { childList: true, characterData: true, subtree: true })
    })
    await notes.click('button.import')
    await notes.waitForSelector('text=Imported 60 notes.', { timeout: 15_000 })
    const seen: string[] = await notes.evaluate(() => (globalThis as any).statusSeen)
    const steps = seen.filter((s) => /^Importing… \d+\/60$/.test(s))
    expect(steps.length).toBeGreaterThanOrEqual(5) // progress arrived before the result
    expect(steps.at(-1)).toBe('Importing… 60/60')
    expect(await notes.evaluate(() => { const p = document.querySelector('progress')!; return [p.value, p.max] })).toEqual([60, 60])
    // The background published a new revision; the tile re-fetched its snapshot.
    await expect.poll(() => notes.textContent('h3')).toContain('(66, revision 60)')
  })

  it('planner: a cross-app call needs a grant the person gives in the trusted dialog', async () => {
    await planner.click('button.find')
    await planner.waitForSelector('text=Planner needs your permission to read Notes.')
    // A person's click (support/gestures.ts): the dialog is only for a gesture in the asking app.
    await g.clickIn(planner, plannerTile, 'button.grant-session')
    const dialog = shell.page.locator('#grant-dialog[open]')
    await dialog.waitFor()
    expect(await dialog.textContent()).toMatch(/Planner \(planner\) wants to list and call the tools of Notes \(notes\)/)
    await shell.page.screenshot({ path: join(ARTIFACTS, 'grant-dialog.png') })
    await dialog.locator('button[data-decision="session"]').click()
    await planner.waitForSelector('ol.agenda li')
    expect(await planner.locator('ol.agenda li').count()).toBeGreaterThanOrEqual(2)
    expect(await planner.textContent('.status')).toMatch(/agenda item\(s\) from Notes/)
    expect(await shell.page.textContent('#grants .active-grants')).toContain('planner → notes (session)')
    const searches = (await audit(shell.page)).filter((e) => e.callerApp === 'planner' && e.tool === 'notes_search')
    expect(searches.map((e) => e.code ?? e.status)).toEqual(['GRANT_REQUIRED', 'ok'])
  })

  it('tray: a popover frame is live only while open; its quick-add updates the tile', async () => {
    await shell.page.click('#tray .tray-button[data-app="notes"]')
    const trayId = await endpointOf('app:notes:tray:instance:')
    const tray = await frameOf(shell.page, trayId)
    await tray.fill('input[name=title]', 'From the tray')
    await tray.fill('textarea[name=body]', 'Saved through the popover')
    await tray.click('button[type=submit]')
    await tray.waitForSelector('text=/Saved note #\\d+/')
    await expect.poll(() => notes.textContent('ul.notes li:first-child')).toContain('From the tray')
    // Closing the popover (a click outside it on the trusted page) destroys the frame and its endpoint.
    await shell.page.click('#workspace', { position: { x: 5, y: 5 } })
    expect((await liveEndpoints(shell.page)).some((id) => id.startsWith('app:notes:tray:'))).toBe(false)
    expect(await shell.page.locator('.popover').count()).toBe(0)
    // Reopening makes a new instance.
    await shell.page.click('#tray .tray-button[data-app="notes"]')
    expect(await endpointOf('app:notes:tray:instance:')).not.toBe(trayId)
    await shell.page.click('#tray .tray-button[data-app="notes"]')
    expect(await shell.page.locator('.popover').count()).toBe(0)
  })

  it('notes: a file imported and an export copied travel as attachments; the tray button shows the count', async () => {
    const badge = () => shell.page.textContent('#tray .tray-button[data-app="notes"] .badge')
    await expect.poll(badge).toBe('67')
    const trip = { notes: [{ title: 'Trip plan', body: 'Trains, then the ferry.' }, { title: 'Packing', body: 'Boots.' }] }
    await notes.setInputFiles('input.import-file', { name: 'trip.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(trip)) })
    await notes.waitForSelector('text=Imported 2 notes from trip.json.')
    await expect.poll(badge).toBe('69')
    await expect.poll(() => notes.textContent('ul.notes li:first-child')).toContain('Packing')
    // Copy export: the click's activation covers the export round trip and the trusted page's clipboard write.
    await shell.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shell.dev.url })
    await g.clickIn(notes, notesTile, 'button.copy-export')
    await notes.waitForSelector('text=Copied 69 notes as JSON.')
    const copied = JSON.parse(await shell.page.evaluate(() => navigator.clipboard.readText()))
    expect(copied.notes).toHaveLength(69)
    expect(copied.notes.at(-1)).toEqual({ title: 'Packing', body: 'Boots.' })
    // A file that is not an export is refused by the background; nothing is added.
    await notes.setInputFiles('input.import-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"notes": [{"body": "no title"}]}') })
    await notes.waitForSelector('text=/TOOL_ERROR: every note needs a title/')
    await expect.poll(badge).toBe('69')
  })

  it('workspace.open_tile: the planner opens a Notes tile with a prefilled (UI-context) query', async () => {
    await planner.click('button.open-notes')
    const opened = await endpointOf('app:notes:tile:t3:')
    const frame = await frameOf(shell.page, opened)
    await frame.waitForSelector('ul.results li')
    expect(await frame.inputValue('input[name=q]')).toBe('roadmap')
  })

  it('the audit view shows the calls; screenshot of the whole shell', async () => {
    // The view refreshes at most 4 times a second.
    await expect
      .poll(() => shell.page.locator('#audit tbody tr td.tool').allTextContents())
      .toEqual(expect.arrayContaining(['notes_search', 'notes_import', 'notes_add', 'permissions.request', 'workspace.open_tile']))
    expect(await shell.page.locator('#audit tr[data-code="GRANT_REQUIRED"]').count()).toBe(1)
    await shell.page.screenshot({ path: join(ARTIFACTS, 'shell.png') })
    expect(shell.errors).toEqual([])
  })
})
