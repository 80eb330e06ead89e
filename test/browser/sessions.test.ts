/**
 * The Sessions pane in real Chromium against a real `wrangler dev` with the offline local model:
 * 1,000 sessions made through the API list newest first, a page of 50 at a time as the list
 * scrolls (the time from navigation to an interactive list is printed); a title search finds one
 * among them (reading past pages without a match); a rename edited inline holds after a reload;
 * archive moves a session behind "Show archived" and restore brings it back; fork makes a new
 * session at the top; a session whose tool call waits for the owner shows "Waiting for approval"
 * and its count; everything is reachable by keyboard, and axe finds no serious or critical
 * violation in the pane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeCheck } from './support/axe.ts'
import { openShell, type Shell } from './support/shell.ts'

const COUNT = 1000
let shell: Shell
let asking = ''

const page = () => shell.page
const pane = () => page().locator('#pane-sessions')
const rows = () => pane().locator('li.session-row')
const row = (id: string) => pane().locator(`li.session-row[data-session="${id}"]`)

/** One API call from the test process with the shell's current access token (it renews its own). */
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const token = await page().evaluate(() => (window as any).neutron.panel.connection.authorization.token as string)
  const res = await fetch(`${shell.dev.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: res.status, body: await res.json() }
}

/** Opens the shell on the Sessions pane and waits until its first rows can be clicked; answers the ms it took. */
async function openList(): Promise<number> {
  // A whole navigation (not a change of the hash): the page loads, restores its sign-in, mounts the pane and reads its first page.
  await page().goto('about:blank')
  const started = Date.now()
  await page().goto(`${shell.dev.url}/?demo=0#/sessions`)
  await rows().first().locator('[data-action=open]').waitFor({ state: 'visible', timeout: 60_000 })
  return Date.now() - started
}

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await page().locator('#agent-panel [data-action=dev-sign-in]').click()
  await page().waitForFunction(() => (window as any).neutron.panel.connection?.authorization.token)
  const made = Date.now()
  let next = 0
  const worker = async () => {
    for (let i = next++; i < COUNT; i = next++) {
      const created = await api('POST', '/v1/sessions', { id: `s-${String(i).padStart(4, '0')}`, title: `Session ${String(i).padStart(4, '0')}` })
      if (created.status !== 201 && created.status !== 200) throw new Error(`create ${i}: ${JSON.stringify(created.body)}`)
    }
  }
  // Created in order (the list is newest first), a few at a time.
  await Promise.all(Array.from({ length: 12 }, worker))
  console.log(`created ${COUNT} sessions through the API in ${Date.now() - made} ms`)
  // The newest: a session whose tool call waits for its owner's answer.
  asking = (await api('POST', '/v1/sessions', {})).body.id
  expect((await api('PUT', `/v1/sessions/${asking}/config`, { permission: { rules: [{ tool: 'bash', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'ask' }] } })).status).toBe(200)
  expect((await api('POST', `/v1/sessions/${asking}/prompt`, { text: `/tool bash ${JSON.stringify({ command: 'rm notes.txt' })}` })).status).toBe(202)
  for (let tries = 0; (await api('GET', `/v1/sessions/${asking}/permissions`)).body.items.length !== 1; tries++) {
    if (tries > 300) throw new Error('no permission request')
    await new Promise((r) => setTimeout(r, 100))
  }
}, 480_000)
afterAll(async () => {
  await shell?.close()
})

describe('the Sessions pane', () => {
  it('lists 1,000 sessions newest first, a page at a time as it scrolls', { timeout: 420_000 }, async () => {
    const ms = await openList()
    console.log(`navigation to an interactive list (first page of 50, live state) with ${COUNT + 1} sessions: ${ms} ms`)
    expect(await rows().count()).toBe(50)
    expect(await rows().first().getAttribute('data-session')).toBe(asking)
    // Made a few at a time, so neighbours may be listed in either order; the newest made alone is first.
    expect(await rows().nth(1).locator('[data-action=open]').innerText()).toMatch(/^Session 09\d\d$/)
    const scrolled = Date.now()
    await expect.poll(async () => {
      await pane().locator('.session-list-end').scrollIntoViewIfNeeded()
      return rows().count()
    }, { timeout: 300_000, interval: 200 }).toBe(COUNT + 1)
    console.log(`scrolled to the end of ${COUNT + 1} sessions in ${Date.now() - scrolled} ms`)
    const listed = await rows().evaluateAll((els) => els.map((el) => el.getAttribute('data-session')))
    expect(new Set(listed).size).toBe(COUNT + 1)
    expect(listed.slice(-12)).toContain('s-0000')
    expect(await pane().locator('[data-action=more]').isHidden()).toBe(true)
  })

  it('shows the session waiting for an approval with its badge and status', async () => {
    await openList()
    await expect.poll(() => row(asking).getAttribute('data-status')).toBe('waiting')
    expect(await row(asking).locator('.badge.approvals').innerText()).toBe('1 to approve')
    expect(await row(asking).locator('.badge.status').innerText()).toBe('Waiting for approval')
    // Its title is its first prompt's first line.
    expect(await row(asking).locator('[data-action=open]').innerText()).toContain('/tool bash')
    expect(await row('s-0999').locator('.badge.status').innerText()).toBe('Idle')
  })

  it('searches titles: one session among 1,000, and an empty state for none', async () => {
    await openList()
    await pane().locator('input[type=search]').fill('session 0123')
    await expect.poll(async () => (await rows().all()).length, { timeout: 30_000 }).toBe(1)
    expect(await rows().first().getAttribute('data-session')).toBe('s-0123')
    await pane().locator('input[type=search]').fill('no such title')
    await pane().locator('p.empty:not([hidden])').waitFor({ timeout: 30_000 })
    expect(await pane().locator('p.empty').innerText()).toContain('No session\'s title matches')
    expect(await rows().count()).toBe(0)
  })

  it('renames inline from the keyboard; the title holds after a reload', async () => {
    await openList()
    const target = row('s-0998')
    await target.locator('[data-action=rename]').focus()
    await page().keyboard.press('Enter')
    await page().keyboard.press('ControlOrMeta+a')
    await page().keyboard.type('Quarterly planning')
    await page().keyboard.press('Enter')
    await expect.poll(() => row('s-0998').locator('[data-action=open]').innerText()).toBe('Quarterly planning')
    // A title over the limit is refused inline, and nothing changes.
    await row('s-0998').locator('[data-action=rename]').click()
    await row('s-0998').locator('input[name=title]').evaluate((el: HTMLInputElement) => (el.removeAttribute('maxlength'), (el.value = 'x'.repeat(201))))
    await row('s-0998').locator('input[name=title]').press('Enter')
    await expect.poll(() => row('s-0998').locator('.session-rename .error').innerText()).toContain('TITLE_TOO_LONG')
    await openList()
    expect(await row('s-0998').locator('[data-action=open]').innerText()).toBe('Quarterly planning')
  })

  it('archives a session behind "Show archived", and restores it', async () => {
    await openList()
    await row('s-0997').locator('[data-action=archive]').click()
    await row('s-0997').waitFor({ state: 'detached' })
    await openList()
    expect(await row('s-0997').count()).toBe(0)
    await pane().locator('input[name=archived]').check()
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBe(1)
    expect(await rows().first().getAttribute('data-session')).toBe('s-0997')
    await row('s-0997').locator('[data-action=restore]').click()
    await row('s-0997').waitFor({ state: 'detached' })
    await pane().locator('input[name=archived]').uncheck()
    await row('s-0997').waitFor({ timeout: 30_000 })
  })

  it('forks a session: the new one is listed first, with where it came from', async () => {
    await openList()
    await row('s-0996').locator('[data-action=fork]').click()
    await expect.poll(async () => (await rows().first().locator('.forked').count()), { timeout: 30_000 }).toBe(1)
    const fork = (await rows().first().getAttribute('data-session'))!
    const listed = (await api('GET', '/v1/sessions?order=newest&limit=1')).body.items[0]
    expect(listed).toMatchObject({ id: fork, forkedFrom: 's-0996' })
  })

  it('is reachable by keyboard, opens a session in the conversation, and has no serious axe violation', async () => {
    await openList()
    await pane().locator('input[type=search]').focus()
    await page().keyboard.press('Tab') // the archived toggle
    await page().keyboard.press('Tab') // the first row's title
    const focused = await page().evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-session'))
    expect(focused).toBeTruthy()
    const report = await axeCheck(page(), '#pane-sessions')
    console.log('axe (Sessions pane): advisory', report.advisory.map((v) => v.id))
    expect(report.blocking).toEqual([])
    await page().screenshot({ path: 'docs/shell-sessions.png' })
    await page().keyboard.press('Enter')
    await expect.poll(() => page().evaluate(() => location.hash)).toBe(`#/conversation/${focused}`)
    expect(shell.errors).toEqual([])
  })
})
