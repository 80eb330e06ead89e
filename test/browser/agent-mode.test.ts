/**
 * Agent Mode in the real kernel, in real Chromium: the owner's consent (a click in the focused
 * tile, the trusted page's dialog, every refusal code), and calls made for the agent — a root
 * invocation with a fresh capability in private metadata, nested calls through `context.kernel`
 * naming their root, laundering through the global client refused app-wide, forged and replayed
 * capabilities refused, and every way a capability dies (return, cancel, revoke, reload).
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PageGestures, gestures } from './support/gestures.ts'
import { HOSTILE, TARGET, type AuditRow, auditSince, fixtureState, frameOf, grant, install, lastSeq, openShell, openTile, revoke, type Shell, waitForEndpoint } from './support/shell.ts'

const TARGET_BG = 'app:target:background'
const HOSTILE_BG = 'app:hostile:background'
/** An app whose tray is the hostile page (a tray must not start Agent Mode or receive a delegated call). */
const TRAY_APP = { id: 'traytest', version: '1.0.0', title: 'Tray test', entries: { tray: '/fixtures/hostile/tile', background: '/fixtures/target/background' }, tools: ['echo'], agentEntrypoints: ['echo'] }

type Outcome = { ok?: any; error?: { code: string; message: string; retryAfterMs?: number } }
let shell: Shell
let g: PageGestures
let h: Frame
let hostileTile: string
let hostileBg: Frame
let target: Frame

const page = () => shell.page
const hostile = <T = Outcome>(fn: string, ...args: unknown[]): Promise<T> => h.evaluate(([fn, args]) => (globalThis as any).hostile[fn as string](...(args as unknown[])), [fn, args] as const)
/** A raw exec from the hostile background, optionally beside a capability. */
const bgExec = (action: string, payload: unknown, invocation?: string): Promise<Outcome> =>
  hostileBg.evaluate(([a, p, i]) => (globalThis as any).fixture.exec(a, p, i ?? undefined).then((m: any) => ('ok' in m ? { ok: m.ok } : { error: m.error })), [action, payload, invocation ?? null] as const)
const capabilities = (): Promise<string[]> => fixtureState<string[]>(hostileBg, 'capabilities')

/** Starts a call made for the agent on the trusted page; `done(key)` awaits it, `stop(key)` stops its root. */
async function startAgentCall(key: string, name: string, args: unknown, options: { timeoutMs?: number; progress?: boolean } = {}): Promise<void> {
  await page().evaluate(([key, name, args, options]) => {
    const w = window as any
    w.agentCalls ??= {}
    const controller = new AbortController()
    const progress: unknown[] = []
    const outcome = w.neutron.kernel.agent.call({ name, arguments: args, timeoutMs: options.timeoutMs, signal: controller.signal, onProgress: options.progress ? (v: unknown) => progress.push(v) : undefined })
    w.agentCalls[key] = { controller, progress, outcome }
  }, [key, name, args, options] as const)
}
const done = (key: string): Promise<Outcome & { progress: unknown[] }> =>
  page().evaluate(async (key) => { const c = (window as any).agentCalls[key]; return { ...(await c.outcome), progress: c.progress } }, key)
const stop = (key: string) => page().evaluate((key) => (window as any).agentCalls[key].controller.abort(), key)
const agentCall = async (name: string, args: unknown, options: { progress?: boolean } = {}) => {
  const key = `k${Math.random()}`
  await startAgentCall(key, name, args, options)
  return done(key)
}
/** The owner enables an entrypoint (as the dialog's Allow does). */
const enable = (app: string, entrypoint: string) =>
  page().evaluate(([app, entrypoint]) => {
    const k = (window as any).neutron.kernel
    const m = k.manifest(app)
    const answer = k.agentMode.ask({ app, version: m.version, title: m.title, entrypoint, endpoint: 'test' })
    k.agentMode.decide(k.agentMode.pending().id, 'allow')
    return answer
  }, [app, entrypoint] as const)
const liveInvocations = (): Promise<number> => page().evaluate(() => (window as any).neutron.kernel.invocations.size)
const setLimits = (limits: Record<string, number>) => page().evaluate((l) => Object.assign((window as any).neutron.kernel.agentMode.limits, l), limits)
const dialogOpen = (): Promise<boolean> => page().evaluate(() => (document.querySelector('#agent-dialog') as HTMLDialogElement).open)
/** A person's click on the #agent button of the tile of endpoint `id` (a raw click: see support/gestures.ts); returns the outcome's index. */
async function clickAgentButton(frame: Frame, entrypoint: string, id = hostileTile): Promise<number> {
  await frame.evaluate((e) => (globalThis as any).hostile.armAgentButton(e), entrypoint)
  const index = await frame.evaluate(() => (globalThis as any).hostile.agentOutcomes.length)
  await g.clickIn(frame, id, '#agent')
  // the click reached the button (nothing modal was in the way)
  await expect.poll(() => frame.evaluate(() => (globalThis as any).hostile.agentOutcomes.length)).toBe(index + 1)
  return index
}
const agentOutcome = async (frame: Frame, index: number): Promise<Outcome> => {
  const settled = (i: number) => { const o = (globalThis as any).hostile.agentOutcomes[i]; return !!o && o.error?.code !== 'PENDING' }
  await expect.poll(() => frame.evaluate(settled, index), { timeout: 15_000 }).toBe(true)
  return frame.evaluate((i) => (globalThis as any).hostile.agentOutcomes[i], index)
}
async function decideInDialog(answer: 'allow' | 'deny') {
  await page().waitForSelector('#agent-dialog[open]')
  const button = page().locator(`#agent-dialog [data-agent-decision="${answer}"]`)
  await expect.poll(() => button.isEnabled()).toBe(true) // armed only after a short delay
  await button.click()
}
function one(entries: AuditRow[], match: Partial<AuditRow> & { root?: string }): AuditRow & { root?: string } {
  const found = entries.filter((e) => Object.entries(match).every(([k, v]) => (e as any)[k] === v))
  expect(found, `audit entry ${JSON.stringify(match)} in ${JSON.stringify(entries, null, 1)}`).toHaveLength(1)
  return found[0] as AuditRow & { root?: string }
}

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(page(), TARGET)
  await install(page(), HOSTILE)
  await waitForEndpoint(page(), TARGET_BG, TARGET.tools)
  await waitForEndpoint(page(), HOSTILE_BG, HOSTILE.tools)
  hostileTile = await openTile(page(), 'hostile')
  h = await frameOf(page(), hostileTile)
  g = await gestures(page())
  await h.evaluate(() => (globalThis as any).hostile.ready)
  hostileBg = await frameOf(page(), HOSTILE_BG)
  target = await frameOf(page(), TARGET_BG)
})
afterAll(async () => {
  await g?.close()
  await shell?.close()
})

describe('the owner enables an entrypoint', () => {
  it('without a click it is USER_ACTIVATION_REQUIRED; a click in the tile opens the trusted dialog, and Allow enables that exact version', async () => {
    const since = await lastSeq(page())
    const refused = await hostile('requestAgentModeNow', 'whoami')
    expect(refused.error).toMatchObject({ code: 'USER_ACTIVATION_REQUIRED' })
    expect(await dialogOpen()).toBe(false)
    // recorded for the person, never readable by apps (a private action)
    expect(one(await auditSince(page(), since), { code: 'USER_ACTIVATION_REQUIRED' })).toMatchObject({ tool: 'agent.mode.request', callerApp: 'hostile' })

    const index = await clickAgentButton(h, 'whoami')
    await page().waitForSelector('#agent-dialog[open]')
    const text = await page().locator('#agent-dialog').innerText()
    expect(text).toContain('whoami')
    expect(text).toContain('hostile version 6.6.6')
    expect(text).toContain('untrusted')
    await decideInDialog('allow')
    expect(await agentOutcome(h, index)).toEqual({ ok: { enabled: true, app: 'hostile', version: '6.6.6', entrypoint: 'whoami' } })
    expect(await hostile('agentModeStatus')).toEqual({ ok: [{ entrypoint: 'whoami', version: '6.6.6' }] })
    await expect.poll(() => page().locator('#agent-mode').innerText()).toContain('whoami — hostile 6.6.6')
  })

  it('an undeclared entrypoint is PERMISSION_DENIED, and a background or a tray cannot ask at all', async () => {
    expect((await hostile('requestAgentModeNow', 'flood')).error).toMatchObject({ code: 'PERMISSION_DENIED' })
    expect((await bgExec('agent.mode.request', { entrypoint: 'whoami' })).error).toMatchObject({ code: 'PERMISSION_DENIED' })
    await install(page(), TRAY_APP)
    await page().evaluate(() => (window as any).neutron.tray.open('traytest'))
    const trayHandle = await page().waitForSelector('.popover iframe[data-endpoint^="app:traytest:tray:"]', { state: 'attached' })
    const tray = (await trayHandle.contentFrame())!
    await tray.evaluate(() => (globalThis as any).hostile.ready)
    const index = await clickAgentButton(tray, 'echo', (await trayHandle.getAttribute('data-endpoint'))!) // a real click: focus and activation, still refused
    expect((await agentOutcome(tray, index)).error).toMatchObject({ code: 'PERMISSION_DENIED' })
    expect(await dialogOpen()).toBe(false)
  })

  it('the owner denies (AGENT_CONSENT_DENIED), a second request meanwhile is UI_BUSY, no answer is AGENT_CONSENT_TIMEOUT', async () => {
    const denied = await clickAgentButton(h, 'slow')
    await page().waitForSelector('#agent-dialog[open]')
    const busy = await hostile('requestAgentModeNow', 'slow')
    expect(busy.error).toMatchObject({ code: 'UI_BUSY' })
    expect(busy.error!.retryAfterMs).toBeGreaterThan(0)
    await decideInDialog('deny')
    expect((await agentOutcome(h, denied)).error).toMatchObject({ code: 'AGENT_CONSENT_DENIED' })
    // Denied, remembered: asked again at once, refused without a dialog.
    const again = await clickAgentButton(h, 'slow')
    expect((await agentOutcome(h, again)).error).toMatchObject({ code: 'AGENT_CONSENT_DENIED', message: expect.stringMatching(/dismissed/), retryAfterMs: expect.any(Number) })
    expect(await dialogOpen()).toBe(false)
    await page().evaluate(() => (window as any).neutron.kernel.dialogs.forget('hostile')) // the back-off has passed

    await setLimits({ consentTimeoutMs: 600 })
    const timedOut = await clickAgentButton(h, 'slow')
    expect((await agentOutcome(h, timedOut)).error).toMatchObject({ code: 'AGENT_CONSENT_TIMEOUT' })
    expect(await dialogOpen()).toBe(false)
    await setLimits({ consentTimeoutMs: 60_000 })
    expect(await hostile('agentModeStatus')).toEqual({ ok: [{ entrypoint: 'whoami', version: '6.6.6' }] })
  })

  it('consent dialogs per app are limited (AGENT_CONSENT_LIMIT), and so are enabled entrypoints (AGENT_MODE_LIMIT)', async () => {
    // three dialogs so far (allow, deny, timeout): the default allows three a minute
    const limited = await clickAgentButton(h, 'slow')
    const outcome = await agentOutcome(h, limited)
    expect(outcome.error).toMatchObject({ code: 'AGENT_CONSENT_LIMIT' })
    expect(outcome.error!.retryAfterMs).toBeGreaterThan(0)
    expect(await dialogOpen()).toBe(false)

    await setLimits({ consentsPerWindow: 100, maxEnabled: 1 })
    const full = await clickAgentButton(h, 'slow')
    expect((await agentOutcome(h, full)).error).toMatchObject({ code: 'AGENT_MODE_LIMIT' })
    expect(await dialogOpen()).toBe(false)
    await setLimits({ maxEnabled: 8 })
  })
})

describe('calls made for the agent', () => {
  beforeAll(async () => {
    for (const entrypoint of ['echo', 'relay']) expect(await enable('target', entrypoint)).toBe('allow')
    expect(await enable('hostile', 'slow')).toBe('allow') // the raw resident: it shows what reaches an app's port
  })

  it('a root call reaches the resident background with a fresh capability beside the call, never inside it', async () => {
    const since = await lastSeq(page())
    const before = (await capabilities()).length
    const outcome = await agentCall('whoami', { n: 1 })
    expect(outcome.ok).toEqual({ caller: { endpoint: 'agent', app: 'agent' }, arguments: { n: 1 } })
    const caps = await capabilities()
    expect(caps).toHaveLength(before + 1)
    const capability = caps.at(-1)!
    expect(capability).toMatch(/^[0-9a-f]{32}$/)
    const message = (await fixtureState<any[]>(hostileBg, 'invokeMessages')).at(-1)
    expect(JSON.stringify(message.payload)).not.toContain(capability) // not in arguments, caller or anything the handler reads
    expect(JSON.stringify(outcome)).not.toContain(capability)
    const entry = one(await auditSince(page(), since), { caller: 'agent', tool: 'whoami', status: 'ok' })
    expect(entry.root).toMatch(/^root-\d+$/)
    expect(await liveInvocations()).toBe(0)

    // replayed after its call returned, and forged: INVOCATION_INVALID, audited, nothing routed
    const replay = await bgExec('tools.call', { target: 'kernel', name: 'apps.list', arguments: {} }, capability)
    expect(replay.error).toMatchObject({ code: 'INVOCATION_INVALID' })
    expect((await bgExec('tools.call', { target: TARGET_BG, name: 'echo', arguments: { text: 'x' } }, 'f'.repeat(32))).error).toMatchObject({ code: 'INVOCATION_INVALID' })
    expect((await bgExec('tools.list', { target: TARGET_BG }, capability)).error).toMatchObject({ code: 'INVOCATION_INVALID' })
    expect((await auditSince(page(), since)).filter((e) => e.code === 'INVOCATION_INVALID')).toHaveLength(3)
  })

  it('while a call for the agent runs: its capability works only from that session, asks nobody, and the app cannot launder through its global client', async () => {
    await grant(page(), 'x', 'hostile', 'target', 'session')
    const echoes = await fixtureState<number>(target, 'calls.echo')
    const before = (await capabilities()).length
    await startAgentCall('hold', 'slow', { ms: 20_000 })
    await expect.poll(async () => (await capabilities()).length).toBe(before + 1)
    const capability = (await capabilities()).at(-1)!
    const since = await lastSeq(page())

    // the same capability from another endpoint of the same app (its tile): not its session
    expect((await hostile('rawExec', 'tools.call', { target: 'kernel', name: 'apps.list', arguments: {} }, { invocation: capability })).error).toMatchObject({ code: 'INVOCATION_INVALID' })
    // from the session it was given to: a scoped call that never falls back to the owner
    expect((await bgExec('tools.call', { target: 'kernel', name: 'apps.list', arguments: {} }, capability)).ok.apps.length).toBeGreaterThan(0)
    const ask = await bgExec('tools.call', { target: 'kernel', name: 'permissions.request', arguments: { app: 'target', scope: 'call' } }, capability)
    expect(ask.error).toMatchObject({ code: 'OWNER_REQUIRED' })
    expect(ask.error!.retryAfterMs).toBeGreaterThan(0)
    expect((await bgExec('tools.call', { target: 'app:traytest:background', name: 'echo', arguments: { text: 'x' } }, capability)).error).toMatchObject({ code: 'OWNER_REQUIRED' }) // no grant
    expect(await page().evaluate(() => (window as any).neutron.kernel.grants.pending().length)).toBe(0)

    // laundering: the global client of any endpoint of the app, leaving the app
    expect((await hostile('sdkCall', TARGET_BG, 'echo', { text: 'laundered' })).error).toMatchObject({ code: 'SCOPED_CONTEXT_REQUIRED' })
    expect((await hostile('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'session' })).error).toMatchObject({ code: 'SCOPED_CONTEXT_REQUIRED' })
    expect((await bgExec('tools.call', { target: TARGET_BG, name: 'echo', arguments: { text: 'laundered' } })).error).toMatchObject({ code: 'SCOPED_CONTEXT_REQUIRED' })
    expect(await fixtureState<number>(target, 'calls.echo')).toBe(echoes)
    // within the app the global client still works (it carries no authority the app lacks)
    expect((await hostile('sdkCall', HOSTILE_BG, 'whoami', {})).ok).toBeTruthy()

    // the scoped call to the other app goes through and names the root
    expect((await bgExec('tools.call', { target: TARGET_BG, name: 'echo', arguments: { text: 'scoped' } }, capability)).ok).toEqual({ text: 'scoped' })
    expect(await fixtureState<number>(target, 'calls.echo')).toBe(echoes + 1)
    const entries = await auditSince(page(), since)
    const scoped = one(entries, { caller: HOSTILE_BG, target: TARGET_BG, tool: 'echo', status: 'ok' })
    expect(scoped.root).toMatch(/^root-\d+$/)
    expect(entries.filter((e) => e.code === 'SCOPED_CONTEXT_REQUIRED')).toHaveLength(3)

    // the owner stops the root: the handler is told to stop, the capability dies, the app is free again
    const cancels = await fixtureState<number>(hostileBg, 'cancels')
    await stop('hold')
    expect((await done('hold')).error).toMatchObject({ code: 'CANCELLED' })
    await expect.poll(() => fixtureState<number>(hostileBg, 'cancels')).toBe(cancels + 1)
    expect(await liveInvocations()).toBe(0)
    expect((await bgExec('tools.call', { target: 'kernel', name: 'apps.list', arguments: {} }, capability)).error).toMatchObject({ code: 'INVOCATION_INVALID' })
    expect((await hostile('sdkCall', TARGET_BG, 'echo', { text: 'free again' })).ok).toEqual({ text: 'free again' })
    await revoke(page(), 'hostile', 'target')
  })

  it('one table: every kernel tool and private action, and whether a call made for the agent may reach it', async () => {
    // true: it puts something in front of the person (a dialog, a tile) or acts as them, so a call
    // made for the agent is refused with OWNER_REQUIRED; a private action never runs under a capability.
    const KERNEL_TOOLS: Record<string, boolean> = {
      'apps.list': false, 'apps.describe': false, 'endpoints.list': false, 'permissions.request': true, 'audit.list': false,
      'workspace.open_tile': true, 'attachments.delegate': false, 'apps.install_offer': true, 'canister.schema': false,
      'canister.call_dialog': true, 'backend_calls.request': true, 'backend_calls.list': false,
    }
    const PRIVATE_ACTIONS: Record<string, boolean> = {
      'tools.expose': false, 'tools.remove': false, 'app.state.publish': false, 'tray.set_state': false, 'tray.dismiss': false,
      'clipboard.write_text': true, 'ethereum_provider.connect': true, 'ethereum_provider.request': true, 'ethereum_provider.disconnect': true,
      'agent.mode.request': true, 'agent.mode.status': false, 'agent.mode.disable': false, 'canister.query_self': false, 'canister.update_self': false,
      'connections.get': false, 'connections.set': false, 'connections.list': false, 'connections.delete': false, 'vetkeys.derive': false,
    }
    const before = (await capabilities()).length
    await startAgentCall('table', 'slow', { ms: 20_000 })
    await expect.poll(async () => (await capabilities()).length).toBe(before + 1)
    const capability = (await capabilities()).at(-1)!
    const reached: Record<string, string> = {}
    for (const [name, owner] of Object.entries(KERNEL_TOOLS)) {
      const code = (await bgExec('tools.call', { target: 'kernel', name, arguments: {} }, capability)).error?.code ?? 'ok'
      reached[name] = code
      if (owner) expect(code, name).toBe('OWNER_REQUIRED')
      else expect(code, name).not.toBe('OWNER_REQUIRED')
    }
    for (const name of Object.keys(PRIVATE_ACTIONS)) expect((await bgExec(name, {}, capability)).error?.code, name).toBe('INVOCATION_INVALID')
    await stop('table')
    expect((await done('table')).error).toMatchObject({ code: 'CANCELLED' })
    // The table names every kernel tool and private action there is, and the kernel says the same of each.
    const listed = (await bgExec('tools.list', { target: 'kernel' })).ok.tools.map((t: { name: string }) => t.name)
    expect(listed.sort()).toEqual(Object.keys(KERNEL_TOOLS).sort())
    const table = await page().evaluate(() => (window as any).neutron.kernel.ownerTable())
    expect(table).toEqual({ kernelTools: KERNEL_TOOLS, privateActions: PRIVATE_ACTIONS })
  })

  it("nested provenance: the agent calls app A, A's handler calls app B through context.kernel, and B's audit entry names the root", async () => {
    await grant(page(), 'x', 'target', 'hostile', 'session')
    const since = await lastSeq(page())
    const before = (await capabilities()).length
    const outcome = await agentCall('relay', { target: HOSTILE_BG, name: 'whoami', arguments: { nested: true } })
    expect(outcome.ok).toEqual({ ok: { caller: { endpoint: TARGET_BG, app: 'target', nested: true }, arguments: { nested: true } } })
    expect((await fixtureState<boolean[]>(target, 'scoped')).at(-1)).toBe(true)
    expect(await capabilities()).toHaveLength(before + 1) // B got a capability of its own
    const entries = await auditSince(page(), since)
    const root = one(entries, { caller: 'agent', target: TARGET_BG, tool: 'relay', status: 'ok' })
    const nested = one(entries, { caller: TARGET_BG, target: HOSTILE_BG, tool: 'whoami', status: 'ok' })
    expect(root.root).toMatch(/^root-\d+$/)
    expect(nested.root).toBe(root.root)

    // the same handler using the app's global client instead: refused, nothing reaches B
    const whoamis = await fixtureState<number>(hostileBg, 'invocations.whoami')
    const laundered = await agentCall('relay', { target: HOSTILE_BG, name: 'whoami', arguments: {}, global: true })
    expect(laundered.ok.error).toMatchObject({ code: 'SCOPED_CONTEXT_REQUIRED' })
    expect(await fixtureState<number>(hostileBg, 'invocations.whoami')).toBe(whoamis)
  })

  it('a nested call into another app dies when the session grant it crossed on is revoked', async () => {
    await grant(page(), 'x', 'target', 'hostile', 'session')
    const slows = (await fixtureState<number>(hostileBg, 'invocations.slow')) ?? 0
    const cancels = await fixtureState<number>(hostileBg, 'cancels')
    await startAgentCall('ungranted', 'relay', { target: HOSTILE_BG, name: 'slow', arguments: { ms: 20_000 } })
    await expect.poll(() => fixtureState<number>(hostileBg, 'invocations.slow')).toBe(slows + 1)
    await revoke(page(), 'target', 'hostile')
    expect((await done('ungranted')).ok.error).toMatchObject({ code: 'GRANT_REQUIRED' })
    await expect.poll(() => fixtureState<number>(hostileBg, 'cancels')).toBe(cancels + 1)
    expect(await liveInvocations()).toBe(0)
  })

  it('a tray never receives a call made for the agent', async () => {
    await grant(page(), 'x', 'target', 'traytest', 'session')
    await page().evaluate(() => (window as any).neutron.tray.open('traytest'))
    const trayId: string = await page().waitForFunction(() => (window as any).neutron.kernel.endpoints.list().find((e: any) => e.kind === 'tray')?.id).then((v) => v.jsonValue())
    expect(trayId).toMatch(/^app:traytest:tray:/)
    const outcome = await agentCall('relay', { target: trayId, name: 'echo', arguments: { text: 'x' } })
    expect(outcome.ok.error).toMatchObject({ code: 'PERMISSION_DENIED' })
    await revoke(page(), 'target', 'traytest')
    await page().evaluate(() => (window as any).neutron.tray.close())
  })

  it('the owner disabling Agent Mode mid-call ends the root and its nested calls (AGENT_MODE_REVOKED); the entrypoint is no longer offered', async () => {
    await grant(page(), 'x', 'target', 'hostile', 'session')
    const slows = (await fixtureState<number>(hostileBg, 'invocations.slow')) ?? 0
    const cancels = await fixtureState<number>(hostileBg, 'cancels')
    await startAgentCall('revoked', 'relay', { target: HOSTILE_BG, name: 'slow', arguments: { ms: 20_000 } })
    await expect.poll(() => fixtureState<number>(hostileBg, 'invocations.slow')).toBe(slows + 1)
    expect(await liveInvocations()).toBe(2)
    await page().locator('[data-agent-entrypoint="target#relay"] [data-action="disable-agent"]').click() // the owner, in the panel
    expect((await done('revoked')).error).toMatchObject({ code: 'AGENT_MODE_REVOKED' })
    await expect.poll(() => fixtureState<number>(hostileBg, 'cancels')).toBe(cancels + 1) // the nested call was told to stop
    expect(await liveInvocations()).toBe(0)
    expect((await agentCall('relay', { target: HOSTILE_BG, name: 'whoami', arguments: {} })).error).toMatchObject({ code: 'AGENT_MODE_REVOKED' })
    const offered = await page().evaluate(() => (window as any).neutron.kernel.agent.offered().map((t: any) => t.name))
    expect(offered).not.toContain('relay')
    expect(offered).toEqual(expect.arrayContaining(['echo', 'slow', 'whoami']))
    await revoke(page(), 'target', 'hostile')
  })

  it("context.signal aborts when the owner stops the root; progress reaches the agent", async () => {
    await page().evaluate(() => (window as any).neutron.kernel.agentMode.disable('hostile', 'slow'))
    expect(await enable('target', 'slow')).toBe('allow')
    const cancelled = await fixtureState<number>(target, 'cancelled')
    await startAgentCall('stopped', 'slow', { ms: 20_000, steps: 4 }, { progress: true })
    await expect.poll(async () => (await page().evaluate(() => (window as any).agentCalls.stopped.progress.length))).toBeGreaterThan(0)
    await stop('stopped')
    const outcome = await done('stopped')
    expect(outcome.error).toMatchObject({ code: 'CANCELLED' })
    expect(outcome.progress[0]).toEqual({ step: 1, of: 4 })
    await expect.poll(() => fixtureState<number>(target, 'cancelled')).toBe(cancelled + 1)
  })

  it('reloading the app mid-call ends the call (ENDPOINT_GONE) and its capability', async () => {
    await startAgentCall('reload', 'slow', { ms: 20_000 })
    await expect.poll(() => liveInvocations()).toBe(1)
    await target.evaluate(() => location.reload())
    expect((await done('reload')).error).toMatchObject({ code: 'ENDPOINT_GONE' })
    expect(await liveInvocations()).toBe(0)
    await waitForEndpoint(page(), TARGET_BG, TARGET.tools)
    target = await frameOf(page(), TARGET_BG)
    expect((await agentCall('echo', { text: 'after reload' })).ok).toEqual({ text: 'after reload' })
  })

  it("input is validated before the app sees it, and an app's own agent.mode.disable ends its entrypoint", async () => {
    expect((await agentCall('echo', { text: 42 })).error).toMatchObject({ code: 'SCHEMA_VIOLATION' })
    expect(await hostile('disableAgentMode', 'whoami')).toEqual({ ok: ['whoami'] })
    expect(await hostile('agentModeStatus')).toEqual({ ok: [] })
    expect((await agentCall('whoami', {})).error).toMatchObject({ code: 'AGENT_MODE_REVOKED' })
  })
})
