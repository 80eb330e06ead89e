/**
 * A hostile app against the real kernel in real Chromium. Every attack must be
 * refused with its machine-readable code, leave an audit entry attributed to
 * the kernel-derived source, and never reach the target (whose handlers count
 * their invocations).
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PageGestures, gestures } from './support/gestures.ts'
import { HOSTILE, TARGET, type AuditRow, auditSince, fixtureState, frameOf, grant, install, lastSeq, liveEndpoints, openShell, openTile, revoke, type Shell, waitForEndpoint } from './support/shell.ts'

const TARGET_BG = 'app:target:background'
const HOSTILE_BG = 'app:hostile:background'
let shell: Shell
let g: PageGestures
let hostileTile: string
let h: Frame
let target: Frame
let hostileBg: Frame

type Outcome = { ok?: any; error?: { code: string; message: string; retryAfterMs?: number }; thrown?: string }

const run = <T = Outcome>(fn: string, ...args: unknown[]): Promise<T> =>
  h.evaluate(([fn, args]) => (globalThis as any).hostile[fn as string](...(args as unknown[])), [fn, args] as const)
const rawCall = (targetId: string, name: string, kind: string): Promise<Outcome> =>
  h.evaluate(([t, n, k]) => { const x = (globalThis as any).hostile; return x.rawCall(t, n, x.payload(k)) }, [targetId, name, kind] as const)
const sdkPayloadCall = (targetId: string, name: string, kind: string): Promise<Outcome> =>
  h.evaluate(([t, n, k]) => { const x = (globalThis as any).hostile; return x.sdkCall(t, n, x.payload(k)) }, [targetId, name, kind] as const)
/** Handler invocations at the target, and tool.invoke messages that reached its port at all. */
const targetCalls = async (): Promise<Record<string, number>> => ({ ...(await fixtureState<Record<string, number>>(target, 'calls')), invokes: await fixtureState<number>(target, 'invokes') })

/** Asserts exactly one new audit entry matches, and returns it. */
function audited(entries: AuditRow[], match: Partial<AuditRow>): AuditRow {
  const found = entries.filter((e) => Object.entries(match).every(([k, v]) => (e as any)[k] === v))
  expect(found, `audit entry ${JSON.stringify(match)} in ${JSON.stringify(entries, null, 1)}`).toHaveLength(1)
  return found[0]!
}

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, TARGET)
  await install(shell.page, HOSTILE)
  await waitForEndpoint(shell.page, TARGET_BG, ['echo', 'slow', 'bad_output'])
  await waitForEndpoint(shell.page, HOSTILE_BG, HOSTILE.tools)
  hostileTile = await openTile(shell.page, 'hostile')
  h = await frameOf(shell.page, hostileTile)
  await h.evaluate(() => (globalThis as any).hostile.ready)
  target = await frameOf(shell.page, TARGET_BG)
  hostileBg = await frameOf(shell.page, HOSTILE_BG)
  g = await gestures(shell.page)
})
afterAll(async () => {
  await g?.close()
  await shell?.close()
})
/** The person is using the hostile tile (a raw click in it): its app may open a dialog now (dialog-gate.ts). */
async function personUsesHostile() {
  await g.quiet()
  await g.clickFrame(hostileTile)
}

describe('window messages are not a bridge', () => {
  it('spoofed exec, probe and connect messages to the shell are ignored and audited', async () => {
    const since = await lastSeq(shell.page)
    await run('postToParent', { type: 'exec', id: 1, payload: { action: 'tools.call', payload: { target: TARGET_BG, name: 'echo', arguments: { text: 'via window' } } } })
    await run('postToParent', { neutron: 'connect', nonce: 'x', endpoint: TARGET_BG })
    await expect.poll(async () => (await auditSince(shell.page, since)).length).toBeGreaterThan(0)
    const entry = audited(await auditSince(shell.page, since), { code: 'WINDOW_MESSAGE_IGNORED' })
    expect(entry).toMatchObject({ caller: hostileTile, callerApp: 'hostile', status: 'ignored', count: 2 })
    expect(await targetCalls()).toMatchObject({ echo: 0, invokes: 0 })
  })

  it('a frame the app nests inside itself is an unknown source', async () => {
    const since = await lastSeq(shell.page)
    await run('nestedFrame')
    await expect.poll(async () => (await auditSince(shell.page, since)).find((e) => e.code === 'UNKNOWN_SOURCE')).toBeTruthy()
    const entry = audited(await auditSince(shell.page, since), { code: 'UNKNOWN_SOURCE' })
    expect(entry).toMatchObject({ caller: `${hostileTile}>nested`, callerApp: 'hostile', count: 2 }) // charged to the app it is nested in
    expect(await targetCalls()).toMatchObject({ echo: 0, invokes: 0 })
  })

  it('a fake kernel port offered to sibling frames is refused by their SDK', async () => {
    expect(await run('spoofSiblings')).toBe(0)
    expect(await targetCalls()).toMatchObject({ echo: 0, invokes: 0 })
  })

  it('a sibling racing the kernel cannot capture a frame that is still starting', async () => {
    const racing = run<number>('captureNewFrames', 2_500)
    await shell.page.waitForTimeout(100)
    const fresh = await openTile(shell.page, 'target')
    const frame = await frameOf(shell.page, fresh)
    expect(await frame.evaluate(() => (globalThis as any).fixture.bus.ready.then((r: { endpoint: string }) => r.endpoint))).toBe(fresh)
    expect(await racing).toBe(0)
    await shell.page.evaluate((slot) => (window as any).neutron.workspaces.closeTile(slot), fresh.split(':')[3])
  })

  it('a second handshake from the same document is ignored and audited; the binding stands', async () => {
    const since = await lastSeq(shell.page)
    await run('repeatHandshake', true)
    await run('repeatHandshake', false)
    await expect.poll(async () => (await auditSince(shell.page, since)).length).toBe(2)
    const entries = await auditSince(shell.page, since)
    audited(entries, { code: 'HANDSHAKE_REPEATED', caller: hostileTile })
    audited(entries, { code: 'HANDSHAKE_REJECTED', caller: hostileTile })
    expect(await liveEndpoints(shell.page)).toContain(hostileTile)
    expect((await run('sdkCall', 'kernel', 'endpoints.list', {})).ok).toBeDefined()
  })

  it("saying 'bye' without unloading does not open the door to a second handshake", async () => {
    const other = await openTile(shell.page, 'hostile')
    const frame = await frameOf(shell.page, other)
    await frame.evaluate(() => (globalThis as any).hostile.ready)
    await frame.evaluate(() => (globalThis as any).hostile.rawSend({ type: 'bye' }))
    await expect.poll(() => liveEndpoints(shell.page)).not.toContain(other)
    const since = await lastSeq(shell.page)
    await frame.evaluate(() => (globalThis as any).hostile.repeatHandshake(true))
    await expect.poll(async () => (await auditSince(shell.page, since)).length).toBe(1)
    expect((await auditSince(shell.page, since))[0]).toMatchObject({ code: 'HANDSHAKE_REPEATED' })
    await shell.page.waitForTimeout(200)
    expect((await liveEndpoints(shell.page)).filter((id) => id.startsWith(`app:hostile:tile:${other.split(':')[3]}:`))).toEqual([])
    await shell.page.evaluate((slot) => (window as any).neutron.workspaces.closeTile(slot), other.split(':')[3])
  })
})

describe('identity comes from the port', () => {
  it('forged endpoint ids in envelopes are refused and audited under the real caller', async () => {
    const since = await lastSeq(shell.page)
    const forgedCaller = await run('rawExec', 'tools.call', { target: TARGET_BG, name: 'echo', arguments: { text: 'x' }, caller: 'app:target:tile:t1:instance:aaaaaaaa' })
    const forgedEnvelope = await run('rawExec', 'tools.call', { target: TARGET_BG, name: 'echo', arguments: { text: 'x' } }, { endpoint: 'app:target:background' })
    const forgedNamespace = await run('rawExec', 'app.state.publish', { topic: 'target', revision: 99, app: 'target' })
    expect([forgedCaller, forgedEnvelope, forgedNamespace].map((o) => o.error?.code)).toEqual(['BAD_REQUEST', 'BAD_REQUEST', 'BAD_REQUEST'])
    const entries = await auditSince(shell.page, since)
    expect(entries.map((e) => [e.caller, e.code])).toEqual([[hostileTile, 'BAD_REQUEST'], [hostileTile, 'BAD_REQUEST'], [hostileTile, 'BAD_REQUEST']])
    expect(await targetCalls()).toMatchObject({ echo: 0, invokes: 0 })
  })

  it('a target learns the kernel-derived caller, whatever the arguments claim', async () => {
    const { ok } = await run('sdkCall', HOSTILE_BG, 'whoami', { caller: TARGET_BG, endpoint: 'kernel' })
    expect(ok).toEqual({ caller: { endpoint: hostileTile, app: 'hostile' }, arguments: { caller: TARGET_BG, endpoint: 'kernel' } })
  })

  it("state changes stay inside the sender's own app", async () => {
    await h.evaluate(() => (globalThis as any).hostile.bus.publishAppStateChange('target', 1000))
    await h.evaluate(() => (globalThis as any).hostile.bus.publishAppStateChange('notes', 1000))
    await shell.page.waitForTimeout(200)
    expect(await fixtureState(target, 'events')).toEqual([])
  })

  it('audit.list returns only the caller app\'s entries and cannot be pointed elsewhere', async () => {
    const mine = await h.evaluate(() => (globalThis as any).hostile.bus.auditList())
    expect(mine.length).toBeGreaterThan(0)
    expect(new Set(mine.map((e: AuditRow) => e.callerApp))).toEqual(new Set(['hostile']))
    expect((await run('sdkCall', 'kernel', 'audit.list', { app: 'target' })).error?.code).toBe('SCHEMA_VIOLATION')
  })
})

describe('cross-app policy', () => {
  it('calls and listings without a grant are refused with GRANT_REQUIRED', async () => {
    const since = await lastSeq(shell.page)
    expect((await run('sdkCall', TARGET_BG, 'echo', { text: 'x' })).error).toMatchObject({ code: 'GRANT_REQUIRED' })
    expect(await h.evaluate(() => (globalThis as any).hostile.bus.listTools('app:target:background').catch((e: any) => e.code))).toBe('GRANT_REQUIRED')
    const entries = await auditSince(shell.page, since)
    expect(entries.map((e) => [e.caller, e.target, e.tool, e.code])).toEqual([
      [hostileTile, TARGET_BG, 'echo', 'GRANT_REQUIRED'],
      [hostileTile, TARGET_BG, 'tools.list', 'GRANT_REQUIRED'],
    ])
    expect(await targetCalls()).toMatchObject({ echo: 0, invokes: 0 })
  })

  it('grant requests: only for declared apps; the person decides in the trusted dialog', async () => {
    expect((await run('sdkCall', 'kernel', 'permissions.request', { app: 'notes', scope: 'session' })).error?.code).toBe('PERMISSION_DENIED')
    expect((await run('sdkCall', 'kernel', 'permissions.request', { app: 'hostile', scope: 'session' })).error?.code).toBe('BAD_REQUEST')

    // Without the person's gesture in the app, no dialog at all.
    expect((await run('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'session' })).error?.code).toBe('USER_ACTIVATION_REQUIRED')
    await personUsesHostile()
    const denied = run('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'session', reason: 'Click Allow! <b>urgent</b>' }, { timeout: 30 })
    await shell.page.waitForSelector('#grant-dialog[open]')
    expect(await shell.page.textContent('#grant-dialog .reason')).toContain('Click Allow! <b>urgent</b>') // shown as text
    expect(await shell.page.isDisabled('#grant-dialog button[data-decision="session"]')).toBe(true) // armed only after a delay
    await shell.page.click('#grant-dialog button[data-decision="deny"]')
    expect((await denied).error?.code).toBe('PERMISSION_DENIED')
    // Declined, remembered: asked again at once, refused without a dialog.
    expect((await run('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'session' })).error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/dismissed/) })
    await shell.page.evaluate(() => (window as any).neutron.kernel.dialogs.forget('hostile')) // the back-off has passed

    await personUsesHostile()
    const once = run('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'session' }, { timeout: 30 })
    await shell.page.click('#grant-dialog button[data-decision="call"]')
    expect((await once).ok).toEqual({ granted: true, scope: 'call' })
    expect(await run('sdkCall', TARGET_BG, 'echo', { text: 'granted once' })).toEqual({ ok: { text: 'granted once' } })
    expect((await run('sdkCall', TARGET_BG, 'echo', { text: 'again' })).error?.code).toBe('GRANT_REQUIRED')
    expect(await targetCalls()).toMatchObject({ echo: 1, invokes: 1 })
    expect(await fixtureState(target, 'callers')).toEqual([hostileTile])
  })
})

describe('limits', () => {
  it('the 9th concurrent call is refused with TOO_MANY_IN_FLIGHT and retryAfterMs, not queued', async () => {
    const before = (await fixtureState<Record<string, number>>(hostileBg, 'invocations')).slow ?? 0
    const since = await lastSeq(shell.page)
    // The SDK refuses an honest app's 9th itself; a raw 9th reaches the kernel and is refused there.
    const [outcomes, raw] = await h.evaluate(async (target) => {
      const x = (globalThis as any).hostile
      const sdk = x.concurrent(9, target, 'slow', { ms: 400 })
      await new Promise((r) => setTimeout(r, 50))
      const raw = x.rawCall(target, 'slow', { ms: 1 })
      return [await sdk, await raw]
    }, HOSTILE_BG)
    expect(outcomes.slice(0, 8)).toEqual(Array(8).fill({ ok: { done: true } }))
    expect(outcomes[8]!.error).toMatchObject({ code: 'TOO_MANY_IN_FLIGHT', retryAfterMs: expect.any(Number) })
    expect(outcomes[8]!.error!.retryAfterMs).toBeGreaterThan(0)
    expect(raw.error).toMatchObject({ code: 'TOO_MANY_IN_FLIGHT', retryAfterMs: expect.any(Number) })
    expect((await fixtureState<Record<string, number>>(hostileBg, 'invocations')).slow).toBe(before + 8)
    audited(await auditSince(shell.page, since), { code: 'TOO_MANY_IN_FLIGHT', caller: hostileTile })
  })

  it.each([
    ['oversize', 'PAYLOAD_TOO_LARGE'],
    ['cyclic', 'NOT_JSON_COMPATIBLE'],
    ['date', 'NOT_JSON_COMPATIBLE'],
    ['typed-array', 'NOT_JSON_COMPATIBLE'],
    ['nan', 'NOT_JSON_COMPATIBLE'],
    ['infinity', 'NOT_JSON_COMPATIBLE'],
    ['undefined', 'NOT_JSON_COMPATIBLE'],
    ['map', 'NOT_JSON_COMPATIBLE'],
  ])('a %s payload is refused by the kernel (%s), audited, and never reaches the target', async (kind, code) => {
    await grant(shell.page, hostileTile, 'hostile', 'target', 'session') // so only the payload check stands in the way
    try {
      const since = await lastSeq(shell.page)
      const raw = await rawCall(TARGET_BG, 'echo', kind)
      expect(raw.error?.code).toBe(code)
      audited(await auditSince(shell.page, since), { code, caller: hostileTile, target: TARGET_BG, tool: 'echo' })
      // An honest app using the SDK fails the same way before anything leaves the frame.
      const sdk = await sdkPayloadCall(TARGET_BG, 'echo', kind)
      expect(sdk.error?.code).toBe(code)
      expect(await auditSince(shell.page, since)).toHaveLength(1)
      expect(await targetCalls()).toMatchObject({ echo: 1, invokes: 1 })
    } finally {
      await revoke(shell.page, 'hostile', 'target')
    }
  })

  it('functions cannot even be posted; the SDK names the problem', async () => {
    expect((await rawCall(TARGET_BG, 'echo', 'function')).thrown).toBe('DataCloneError')
    expect((await sdkPayloadCall(TARGET_BG, 'echo', 'function')).error?.code).toBe('NOT_JSON_COMPATIBLE')
  })
})

describe('schemas at both ends', () => {
  it('input that violates the target schema is refused by the kernel before the target sees it', async () => {
    await grant(shell.page, hostileTile, 'hostile', 'target', 'session')
    try {
      const since = await lastSeq(shell.page)
      for (const args of [{ text: 123 }, { text: 'x', extra: true }, { text: 'x'.repeat(101) }, {}]) {
        expect((await run('rawCall', TARGET_BG, 'echo', args)).error?.code).toBe('SCHEMA_VIOLATION')
      }
      const entries = await auditSince(shell.page, since)
      expect(entries.map((e) => e.code)).toEqual(Array(4).fill('SCHEMA_VIOLATION'))
      expect(await targetCalls()).toMatchObject({ echo: 1, invokes: 1 })

      // Output: an SDK endpoint refuses to send output violating its own schema.
      const bad = await run('sdkCall', TARGET_BG, 'bad_output', {})
      expect(bad.error).toMatchObject({ code: 'SCHEMA_VIOLATION', message: expect.stringContaining('output') })
    } finally {
      await revoke(shell.page, 'hostile', 'target')
    }
  })

  it('output that violates the schema is stopped by the kernel, and none of it reaches the caller', async () => {
    const since = await lastSeq(shell.page)
    const outcome = await run('sdkCall', HOSTILE_BG, 'raw_bad_output', {})
    expect(outcome.error).toMatchObject({ code: 'SCHEMA_VIOLATION', message: expect.stringContaining('output') })
    expect(JSON.stringify(outcome)).not.toContain('must not reach')
    expect(JSON.stringify(await h.evaluate(() => (globalThis as any).hostile.rawSeen))).not.toContain('must not reach')
    audited(await auditSince(shell.page, since), { code: 'SCHEMA_VIOLATION', tool: 'raw_bad_output' })
  })
})

describe('progress', () => {
  it('progress over the rate is dropped, oversized or non-JSON events are dropped, the result still arrives', async () => {
    const since = await lastSeq(shell.page)
    const result = await run<{ outcome: Outcome; progress: number; lateOnPort: number }>('withProgress', HOSTILE_BG, 'flood', { events: 400 })
    expect(result.outcome).toEqual({ ok: { sent: 400 } })
    // the burst of 256, less the two rejected events that came first, plus what refilled meanwhile
    expect(result.progress).toBeGreaterThanOrEqual(254)
    expect(result.progress).toBeLessThan(400)
    const entries = await auditSince(shell.page, since)
    expect(audited(entries, { code: 'PROGRESS_LIMIT' })).toMatchObject({ caller: HOSTILE_BG, target: hostileTile, count: 1 })
    expect(audited(entries, { code: 'PROGRESS_REJECTED' })).toMatchObject({ caller: HOSTILE_BG, count: 2 })
    audited(entries, { tool: 'flood', status: 'ok' })
  })

  it('a sender that keeps flooding is disconnected (FLOODED) until its frame loads a new document', async () => {
    await shell.page.waitForTimeout(1_100) // let the previous test's progress rate refill
    const since = await lastSeq(shell.page)
    try {
      const result = await run<{ outcome: Outcome; progress: number }>('withProgress', HOSTILE_BG, 'flood', { events: 2_600 })
      expect(result.outcome.error?.code).toBe('ENDPOINT_GONE')
      expect(result.progress).toBeLessThan(400) // the burst, and what refilled meanwhile; never the 2,000 cap
      audited(await auditSince(shell.page, since), { code: 'FLOODED', caller: HOSTILE_BG })
      expect(await liveEndpoints(shell.page)).not.toContain(HOSTILE_BG)
    } finally {
      await hostileBg.evaluate(() => void setTimeout(() => location.reload(), 0))
      await waitForEndpoint(shell.page, HOSTILE_BG, HOSTILE.tools)
      hostileBg = await frameOf(shell.page, HOSTILE_BG)
    }
  })

  it('a throwing consumer cannot change the final result', async () => {
    const result = await run<{ outcome: Outcome; progress: number }>('withProgress', HOSTILE_BG, 'flood', { events: 5 }, { throwInConsumer: true })
    expect(result).toMatchObject({ outcome: { ok: { sent: 5 } }, progress: 5 })
  })

  it("progress from anyone but the call's own target is dropped, even with guessed invocation ids", async () => {
    await grant(shell.page, hostileTile, 'hostile', 'target', 'session')
    try {
      await run('sdkCall', HOSTILE_BG, 'whoami', {})
      const k = await fixtureState<number>(hostileBg, 'lastInvokeId')
      const slow = (await targetCalls()).slow!
      const since = await lastSeq(shell.page)
      const call = run<{ outcome: Outcome; values: unknown[] }>('withProgress', TARGET_BG, 'slow', { ms: 600, steps: 3 })
      await expect.poll(async () => (await targetCalls()).slow).toBe(slow + 1)
      await hostileBg.evaluate(([a, b]) => (globalThis as any).fixture.spray(a, b), [k - 5, k + 40])
      const result = await call
      expect(result.outcome).toEqual({ ok: { done: true } })
      expect(result.values).toEqual([1, 2, 3].map((step) => ({ step, of: 3 })))
      expect(audited(await auditSince(shell.page, since), { code: 'LATE_PROGRESS', caller: HOSTILE_BG }).count).toBe(46)
    } finally {
      await revoke(shell.page, 'hostile', 'target')
    }
  })

  it('late progress, and progress or results from a non-target, are dropped and audited', async () => {
    await shell.page.waitForTimeout(1_100) // the previous test's identical events would fold into its entry for 1 s
    const since = await lastSeq(shell.page)
    const late = await run<{ outcome: Outcome; progress: number; lateOnPort: number }>('withProgress', HOSTILE_BG, 'late', {})
    expect(late).toEqual({ outcome: { ok: { ok: true } }, progress: 0, lateOnPort: 0, values: [] })
    await run('rawSend', { type: 'progress', id: 1, value: 'not my call' })
    await run('rawSend', { type: 'result', id: 1, ok: { forged: true } })
    await run('rawSend', 'garbage')
    await expect.poll(async () => (await auditSince(shell.page, since)).length).toBe(5)
    const entries = await auditSince(shell.page, since)
    expect(audited(entries, { code: 'LATE_PROGRESS', caller: HOSTILE_BG })).toMatchObject({ count: 5 })
    audited(entries, { code: 'LATE_PROGRESS', caller: hostileTile })
    audited(entries, { code: 'LATE_RESULT', caller: hostileTile })
    audited(entries, { code: 'MALFORMED_MESSAGE', caller: hostileTile })
  })
})

describe('refused private actions: audited for the person, never readable by the app', () => {
  it('a refused private action is audited for the person but never readable by the app (audit.list)', async () => {
    const since = await lastSeq(shell.page)
    expect((await run('rawExec', 'tools.expose', { name: 'nope' })).error?.code).toBe('BAD_REQUEST')
    expect((await run('rawExec', 'app.state.publish', { topic: 'x', revision: -1 })).error?.code).toBe('BAD_REQUEST')
    expect((await run('rawExec', 'clipboard.read_everything', {})).error?.code).toBe('UNKNOWN_ACTION')
    const trusted = (await auditSince(shell.page, since)).filter((e) => e.caller === hostileTile)
    expect(trusted.map((e) => [e.tool, e.code])).toEqual([['tools.expose', 'BAD_REQUEST'], ['app.state.publish', 'BAD_REQUEST'], ['clipboard.read_everything', 'UNKNOWN_ACTION']])
    const readable: AuditRow[] = await h.evaluate(() => (globalThis as any).hostile.bus.auditList())
    expect(readable.filter((e) => e.seq > since && e.tool !== 'audit.list')).toEqual([])
    // A refused call is still readable: only private actions are kept out.
    expect((await run('sdkCall', TARGET_BG, 'echo', { text: 'x' })).error?.code).toBe('GRANT_REQUIRED')
    const after: AuditRow[] = await h.evaluate(() => (globalThis as any).hostile.bus.auditList())
    expect(after.filter((e) => e.seq > since && e.code === 'GRANT_REQUIRED')).toHaveLength(1)
  })

  it('a pending grant request holds none of the 8 call slots; a second one is UI_BUSY with retryAfterMs', async () => {
    await personUsesHostile()
    const pending = run('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'call' }, { timeout: 60 })
    await shell.page.waitForSelector('#grant-dialog[open]')
    const busy = await run('sdkCall', 'kernel', 'permissions.request', { app: 'target', scope: 'call' })
    expect(busy.error).toMatchObject({ code: 'UI_BUSY', retryAfterMs: expect.any(Number) })
    expect(busy.error!.retryAfterMs).toBeGreaterThan(0)
    // With the dialog open, all 8 slots are free: through the SDK and at the kernel.
    expect(await run('concurrent', 8, HOSTILE_BG, 'slow', { ms: 300 })).toEqual(Array(8).fill({ ok: { done: true } }))
    await shell.page.click('#grant-dialog button[data-decision="deny"]')
    expect((await pending).error?.code).toBe('PERMISSION_DENIED')
  })

  it("a call to the app's own background while it is reconnecting waits for its handshake instead of UNKNOWN_TARGET", async () => {
    const old = await shell.page.evaluate((id) => (window as any).neutron.kernel.endpoints.get(id).session, HOSTILE_BG)
    // The background's document goes away; its frame stays mounted until the new document connects.
    await shell.page.evaluate((id) => { const k = (window as any).neutron.kernel; k.frames.documentGone(k.endpoints.get(id)) }, HOSTILE_BG)
    let settled = false
    const answer = run('sdkCall', HOSTILE_BG, 'whoami', {}).finally(() => (settled = true))
    await shell.page.waitForTimeout(500)
    expect(settled).toBe(false) // waiting for the handshake, not UNKNOWN_TARGET
    await hostileBg.evaluate(() => void setTimeout(() => location.reload(), 0))
    expect((await answer).ok).toMatchObject({ caller: { endpoint: hostileTile, app: 'hostile' } })
    expect(await shell.page.evaluate((id) => (window as any).neutron.kernel.endpoints.get(id).session, HOSTILE_BG)).not.toBe(old)
    hostileBg = await frameOf(shell.page, HOSTILE_BG)
    // Only an installed app's background is waited for: an unknown id still fails at once.
    expect((await run('sdkCall', 'app:nobody:background', 'whoami', {})).error?.code).toBe('UNKNOWN_TARGET')
  })
})

describe('reload mid-call', () => {
  it('the target reloads: the caller gets ENDPOINT_GONE and the new document never sees the call', async () => {
    await grant(shell.page, hostileTile, 'hostile', 'target', 'session')
    try {
      const since = await lastSeq(shell.page)
      const slow = (await targetCalls()).slow!
      const pending = run('sdkCall', TARGET_BG, 'slow', { ms: 5_000 })
      await expect.poll(async () => (await targetCalls()).slow).toBe(slow + 1)
      await target.evaluate(() => location.reload())
      expect((await pending).error?.code).toBe('ENDPOINT_GONE')
      audited(await auditSince(shell.page, since), { code: 'ENDPOINT_GONE', caller: hostileTile, tool: 'slow' })
      await waitForEndpoint(shell.page, TARGET_BG, ['echo', 'slow'])
      target = await frameOf(shell.page, TARGET_BG)
      await shell.page.waitForTimeout(300)
      expect(await targetCalls()).toEqual({ echo: 0, slow: 0, bad_output: 0, invokes: 0 })
    } finally {
      await revoke(shell.page, 'hostile', 'target')
    }
  })

  it('the caller reloads: the target is told to cancel, and its late answer is dropped and audited', async () => {
    const cancels = await fixtureState<number>(hostileBg, 'cancels')
    const since = await lastSeq(shell.page)
    void h.evaluate(() => (globalThis as any).hostile.sdkCall('app:hostile:background', 'answer_after_cancel', { ms: 600 })).catch(() => {})
    await expect.poll(async () => (await fixtureState<Record<string, number>>(hostileBg, 'invocations')).answer_after_cancel).toBe(1)
    const tileSlot = hostileTile.split(':')[3]
    await shell.page.click(`section.tile[data-tile="${tileSlot}"] button[data-action="reload"]`)
    await expect.poll(() => fixtureState<number>(hostileBg, 'cancels')).toBe(cancels + 1)
    await expect.poll(async () => (await auditSince(shell.page, since)).find((e) => e.code === 'LATE_RESULT')).toBeTruthy()
    const entries = await auditSince(shell.page, since)
    audited(entries, { code: 'ENDPOINT_GONE', caller: hostileTile, tool: 'answer_after_cancel' })
    audited(entries, { code: 'LATE_RESULT', caller: HOSTILE_BG })
    const fresh = (await liveEndpoints(shell.page)).find((id) => id.startsWith('app:hostile:tile:'))
    expect(fresh).toBeDefined()
    expect(fresh).not.toBe(hostileTile)
    expect(fresh!.split(':')[3]).toBe(tileSlot)
    const newFrame = await frameOf(shell.page, fresh!)
    await newFrame.evaluate(() => (globalThis as any).hostile.ready)
    expect(await newFrame.evaluate(() => (globalThis as any).hostile.rawSeen.filter((m: any) => m.type === 'result').length)).toBe(0)
  })

  it('nothing else reached the target, and the trusted page raised no errors', async () => {
    expect(await targetCalls()).toEqual({ echo: 0, slow: 0, bad_output: 0, invokes: 0 })
    expect(shell.errors).toEqual([])
  })
})
