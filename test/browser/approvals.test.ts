/**
 * Answering a session's permission requests from the shell's agent panel, in real Chromium against
 * a real `wrangler dev` with the offline local model. The session's policy allows `bash` but asks
 * for `rm` ({tool:'bash', match:'rm *', action:'ask'}): the card shows the request (tool, command,
 * input, reason); "Allow once" runs it (the file is gone, the result is in /history); "Reject" with
 * a reason, typed and sent from the keyboard, fails the call PERMISSION_DENIED in the panel and
 * leaves the file; "Always allow" adds the rule, so the next such rm runs unasked. The card updates
 * when the request is answered elsewhere (over HTTP) and when it expires, and a pending request
 * survives a reload (the tab reopens the session, whose socket replays its history). A refused
 * answer (already settled; an "always" the config refuses) writes nothing, and the card says why.
 */
import { copyFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, openShell, type Shell } from './support/shell.ts'
import { conversationLines } from './support/conversation.ts'

let shell: Shell
let session: string

const page = () => shell.page
const panel = () => page().locator('#agent-panel')
const lines = (kind: string) => conversationLines(page(), kind)
const card = (state = 'pending') => panel().locator(`article.permission[data-state=${state}]`)

async function prompt(text: string) {
  await panel().locator('[name=prompt]').fill(text)
  await panel().locator('[data-action=send]').click()
}
/** Runs one bash line through the session's model: `/tool bash {"command": …}` (the local model's syntax). */
const bash = (command: string) => prompt(`/tool bash ${JSON.stringify({ command })}`)

/** One API call with the panel's own token: status and JSON body. */
function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page().evaluate(
    async ([method, path, body]) => {
      const token = (window as any).neutron.panel.connection.authorization.token
      const res = await fetch(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      const text = await res.text()
      return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text }
    },
    [method, path, body] as const,
  )
}
const history = async (): Promise<{ type: string; payload: any }[]> => (await api('GET', `/v1/sessions/${session}/history?limit=1000`)).body.items
const ofType = async (type: string) => (await history()).filter((e) => e.type === `session.next.${type}`)
const file = async (path: string) => (await api('GET', `/v1/sessions/${session}/workspace/file?path=${encodeURIComponent(path)}`)).status
/** The session is idle again: its turn (and the tool results' turn) has ended. */
const idle = () => expect.poll(async () => (await api('GET', `/v1/sessions/${session}`)).body.status, { timeout: 30_000 }).toBe('idle')

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await panel().locator('[data-action=dev-sign-in]').click()
  await panel().locator('[data-action=new-session]').click()
  await panel().locator('[data-connection=live]').waitFor({ timeout: 30_000 })
  session = await page().evaluate(() => (window as any).neutron.panel.open.id)
  const put = await api('PUT', `/v1/sessions/${session}/config`, {
    permission: { rules: [{ tool: 'bash', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'ask' }] },
  })
  expect(put.status).toBe(200)
})
afterAll(async () => {
  await shell?.close()
})

describe("the agent panel answers a session's permission requests", () => {
  it('shows the request, and "Allow once" runs it: the file is gone and the result is in the history', async () => {
    await bash('echo draft > notes.txt')
    await idle()
    expect(await file('notes.txt')).toBe(200)
    expect(await card().count()).toBe(0) // an allowed call asks nothing

    await bash('rm notes.txt')
    await card().waitFor({ timeout: 30_000 })
    const shown = await card().innerText()
    expect(shown).toContain('bash asks before it acts')
    expect(shown).toContain('rm notes.txt') // what it acts on, and its input
    expect(shown).toContain('"command":"rm notes.txt"')
    expect(shown).toMatch(/Why: .*rm/)
    expect(await panel().locator('[data-permission-summary]').innerText()).toBe('1 tool call waits for your answer')
    const [requested] = await ofType('permission.requested')
    expect(requested!.payload).toMatchObject({ tool: 'bash', subjects: ['rm notes.txt'] })
    expect(await card().getAttribute('data-permission')).toBe(requested!.payload.toolCallId)
    expect(await file('notes.txt')).toBe(200) // parked: nothing ran yet
    await panel().screenshot({ path: resolve(ARTIFACTS, 'approvals-shell.png') })
    // The README's screenshot is refreshed on request only: a test run never rewrites tracked files.
    if (process.env.NEURON_UPDATE_SCREENSHOTS === '1') copyFileSync(resolve(ARTIFACTS, 'approvals-shell.png'), resolve(import.meta.dirname, '../../docs/approvals-shell.png'))

    await card().getByRole('button', { name: 'Allow once' }).click()
    await card('once').waitFor({ timeout: 30_000 })
    expect(await card('once').innerText()).toContain('Allowed once by you')
    expect(await card('once').getByRole('button').count()).toBe(0) // the answers are gone
    await idle()
    expect(await file('notes.txt')).toBe(404)
    const succeeded = (await ofType('tool.succeeded')).filter((e) => e.payload.toolCallId === requested!.payload.toolCallId)
    expect(succeeded).toHaveLength(1)
    expect(await ofType('permission.answered')).toMatchObject([{ payload: { toolCallId: requested!.payload.toolCallId, reply: 'once' } }])
    expect(await panel().locator('[data-permission-summary]').innerText()).toBe('')
  })

  it('"Reject" with a reason, from the keyboard, fails the call PERMISSION_DENIED in the panel and leaves the file', async () => {
    await bash('echo keep > keep.txt')
    await idle()
    await bash('rm keep.txt')
    await card().waitFor({ timeout: 30_000 })
    const reason = card().getByRole('textbox', { name: 'Reason for rejecting bash' })
    await reason.focus()
    await page().keyboard.type('the notes are still needed')
    await page().keyboard.press('Enter')
    await card('reject').waitFor({ timeout: 30_000 })
    expect(await card('reject').innerText()).toContain('Rejected by you: the notes are still needed')
    await expect.poll(() => lines('error'), { timeout: 30_000 }).toEqual([expect.stringContaining('PERMISSION_DENIED: the owner rejected the call: the notes are still needed')])
    await idle()
    expect(await file('keep.txt')).toBe(200)
    expect((await ofType('tool.failed')).map((e) => e.payload.error.code)).toEqual(['PERMISSION_DENIED'])
  })

  it('a refused answer (the request is already settled otherwise) writes nothing and the client says why', async () => {
    const [, rejected] = await ofType('permission.answered')
    const before = (await history()).length
    const refused = await page().evaluate(async (toolCallId) => {
      try {
        return await (window as any).neutron.panel.open.socket.answerPermission({ toolCallId, reply: 'once' })
      } catch (error) {
        return { code: (error as { code: string }).code, details: (error as { details: unknown }).details }
      }
    }, rejected!.payload.toolCallId)
    expect(refused).toEqual({ code: 'PERMISSION_SETTLED', details: { toolCallId: rejected!.payload.toolCallId, outcome: 'reject' } })
    expect((await history()).length).toBe(before)
  })

  it('"Always allow" adds the rule, so the next such rm runs without asking', async () => {
    await bash('echo old > cache.txt')
    await idle()
    await bash('rm cache.txt')
    await card().waitFor({ timeout: 30_000 })
    // By keyboard: the answers are plain buttons in the tab order.
    await card().getByRole('button', { name: 'Always allow' }).focus()
    await page().keyboard.press('Space')
    await card('always').waitFor({ timeout: 30_000 })
    expect(await card('always').innerText()).toContain('bash rm cache.txt from now on in this session')
    // The answered buttons are gone; the keyboard's focus stays on the card, on how it ended.
    expect(await page().evaluate(() => document.activeElement?.closest('article.permission')?.getAttribute('data-state') + ' ' + document.activeElement?.className)).toBe('always outcome')
    await idle()
    expect(await file('cache.txt')).toBe(404)
    const config = await api('GET', `/v1/sessions/${session}/config`)
    expect(config.body.document.permission.rules.at(-1)).toEqual({ tool: 'bash', match: 'rm cache.txt', action: 'allow' })

    const asked = (await ofType('permission.requested')).length
    await bash('echo new > cache.txt && rm cache.txt')
    await idle()
    expect(await file('cache.txt')).toBe(404)
    expect((await ofType('permission.requested')).length).toBe(asked)
    expect(await card().count()).toBe(0)
  })

  it('the card updates when the request is answered elsewhere (over HTTP), and a pending one survives a reload', async () => {
    await bash('echo a > a.txt && echo b > b.txt')
    await idle()
    await bash('rm a.txt')
    await card().waitFor({ timeout: 30_000 })
    const first = (await card().getAttribute('data-permission'))!
    const answered = await api('POST', `/v1/sessions/${session}/permissions`, { toolCallId: first, reply: 'once' })
    expect(answered).toMatchObject({ status: 200, body: { toolCallId: first, reply: 'once', duplicate: false } })
    await panel().locator(`article.permission[data-permission="${first}"][data-state=once]`).waitFor({ timeout: 30_000 })
    await idle()
    expect(await file('a.txt')).toBe(404)

    await bash('rm b.txt')
    await card().waitFor({ timeout: 30_000 })
    const second = (await card().getAttribute('data-permission'))!
    await page().reload()
    // The tab signs back in and reopens the session it showed; the replay brings the request back.
    await card().waitFor({ timeout: 30_000 })
    expect(await panel().locator('select[data-sessions] option:checked').getAttribute('value')).toBe(session)
    expect(await card().getAttribute('data-permission')).toBe(second)
    expect(await card().innerText()).toContain('rm b.txt')
    await card().getByRole('button', { name: 'Allow once' }).click()
    await panel().locator(`article.permission[data-permission="${second}"][data-state=once]`).waitFor({ timeout: 30_000 })
    await idle()
    expect(await file('b.txt')).toBe(404)
    expect(shell.errors).toEqual([])
  })

  it('an answer the server refuses (an "always" past the config\'s 256 rules) is shown on its card, writes nothing, and the card can still be answered', async () => {
    const filler = Array.from({ length: 254 }, (_, i) => ({ tool: `unused_${i}`, action: 'allow' }))
    const put = await api('PUT', `/v1/sessions/${session}/config`, { permission: { rules: [{ tool: 'bash', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'ask' }, ...filler] } })
    expect(put.status).toBe(200)
    await bash('rm keep.txt')
    await card().waitFor({ timeout: 30_000 })
    const id = (await card().getAttribute('data-permission'))!
    const answers = (await ofType('permission.answered')).length
    const version = (await api('GET', `/v1/sessions/${session}/config`)).body.version
    await card().getByRole('button', { name: 'Always allow' }).click()
    await expect.poll(() => card().locator('.outcome').innerText(), { timeout: 30_000 }).toContain('Not answered: INVALID_CONFIG')
    expect(await card().getByRole('button', { name: 'Always allow' }).isEnabled()).toBe(true) // answerable again
    expect((await ofType('permission.answered')).length).toBe(answers)
    expect((await api('GET', `/v1/sessions/${session}/config`)).body.version).toBe(version)
    await card().getByRole('button', { name: 'Reject' }).click()
    await panel().locator(`article.permission[data-permission="${id}"][data-state=reject]`).waitFor({ timeout: 30_000 })
    await idle()
    expect(await file('keep.txt')).toBe(200)
  })

  it("the README's walk: a request made over the API waits in the session until the person signs in, chooses it and allows it", async () => {
    const id = `workbench-${Date.now()}`
    expect((await api('POST', '/v1/sessions', { id })).status).toBe(201)
    expect((await api('PUT', `/v1/sessions/${id}/config`, { permission: { rules: [{ tool: 'bash', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'ask' }] } })).status).toBe(200)
    expect((await api('POST', `/v1/sessions/${id}/prompt`, { text: '/tool bash {"command":"echo hello > hello.txt"}' })).status).toBe(202)
    await expect.poll(async () => (await api('GET', `/v1/sessions/${id}/workspace/file?path=hello.txt`)).status, { timeout: 30_000 }).toBe(200)
    expect((await api('POST', `/v1/sessions/${id}/prompt`, { text: '/tool bash {"command":"rm hello.txt"}' })).status).toBe(202)
    await expect.poll(async () => (await api('GET', `/v1/sessions/${id}/permissions`)).body.items.length, { timeout: 30_000 }).toBe(1)

    // The person arrives: signs in, and the session's list names it.
    await panel().locator('[data-action=sign-out]').click()
    await panel().locator('[data-action=dev-sign-in]').click()
    await panel().locator(`select[data-sessions] option[value="${id}"]`).waitFor({ state: 'attached', timeout: 30_000 })
    await panel().locator('select[data-sessions]').selectOption(id)
    await card().waitFor({ timeout: 30_000 })
    expect(await card().innerText()).toContain('rm hello.txt')
    await card().getByRole('button', { name: 'Allow once' }).click()
    await card('once').waitFor({ timeout: 30_000 })
    await expect.poll(async () => (await api('GET', `/v1/sessions/${id}/workspace/file?path=hello.txt`)).status, { timeout: 30_000 }).toBe(404)
    await panel().locator('select[data-sessions]').selectOption(session) // back to the session the other cases use
    await panel().locator(`[data-session="${session}"] [data-connection=live]`).waitFor({ timeout: 30_000 })
  })

  it('a request nobody answers expires: the card says so and the call fails PERMISSION_TIMEOUT', async () => {
    const put = await api('PUT', `/v1/sessions/${session}/config`, {
      permission: { rules: [{ tool: 'bash', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'ask' }], askTimeoutSeconds: 10 },
    })
    expect(put.status).toBe(200)
    await bash('rm keep.txt')
    await card().waitFor({ timeout: 30_000 })
    await card('expired').waitFor({ timeout: 40_000 })
    expect(await card('expired').innerText()).toContain('Expired: nobody answered in time')
    await expect.poll(() => lines('error'), { timeout: 30_000 }).toContainEqual(expect.stringContaining('PERMISSION_TIMEOUT'))
    expect(await file('keep.txt')).toBe(200)
  })
})
