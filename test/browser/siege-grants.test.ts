/**
 * Hardening probes, part two (harness: `support/siege.ts`): what the audit
 * keeps, grants and the person (request spam, swapped requests, grants across a
 * target reload), and handshake races.
 */
import { describe, expect, it } from 'vitest'
import { gestures } from './support/gestures.ts'
import { type AuditRow, audit, auditSince, fixtureState, grant, lastSeq, liveEndpoints } from './support/shell.ts'
import { SIEGE_BG, WITNESS_BG, assertNothingSmuggled, duringAttack, ensureSiegeTile, one, reloadSiegeBackground, run, s, setupSiege, shell, siegeBg, siegeTile, w, witnessTile } from './support/siege.ts'

setupSiege()

describe('the audit keeps what matters', () => {
  it('a refused cross-app call is not erased by 110 harmless calls from the same app', async () => {
    expect((await run('rawCall', WITNESS_BG, 'inspect', {})).error?.code).toBe('GRANT_REQUIRED')
    for (let i = 0; i < 110; i++) await run('rawCall', 'kernel', 'endpoints.list', {})
    const mine = await s.evaluate(() => (globalThis as any).siege.bus.auditList())
    expect(mine.filter((e: AuditRow) => e.code === 'GRANT_REQUIRED' && e.target === WITNESS_BG)).toHaveLength(1)
    expect((await audit(shell.page)).filter((e) => e.callerApp === 'siege').length).toBeLessThanOrEqual(100)
  })

  it("window messages from frames an app nests are charged to that app and push out no one else's entries", async () => {
    for (let i = 0; i < 20; i++) await w.evaluate(() => (globalThis as any).witness.call('kernel', 'apps.list', {}))
    const witnessBefore = (await audit(shell.page)).filter((e) => e.callerApp === 'witness').map((e) => e.seq)
    const since = await lastSeq(shell.page)
    await duringAttack('4 nested frames × 2,000 window messages, plus 300 ordinary calls', async () => {
      await run('nestedFlood', 4, 2_000)
      for (let i = 0; i < 300; i++) await run('rawCall', 'kernel', 'endpoints.list', {})
    }, { witness: false })
    const after = await audit(shell.page)
    const unknown = after.filter((e) => e.seq > since && e.code === 'UNKNOWN_SOURCE')
    expect(unknown.length).toBeGreaterThan(0)
    expect(unknown.every((e) => e.callerApp === 'siege' && e.caller === `${siegeTile}>nested`)).toBe(true)
    const witnessAfter = after.filter((e) => e.callerApp === 'witness').map((e) => e.seq)
    expect(witnessAfter.slice(0, witnessBefore.length)).toEqual(witnessBefore)
  })
})

describe('grants and the person', () => {
  it('permissions.request spam: bounded, refused at once, no grant, the dialog left empty, ordinary calls fast', async () => {
    const since = await lastSeq(shell.page)
    const { value: counts } = await duringAttack('8 lanes asking for a grant and withdrawing it, 1.5 s', () => run<Record<string, number>>('permissionSpam', 1_500))
    expect(counts.ok ?? 0).toBe(0)
    // Refusals only: no gesture in the app (nobody clicked it), withdrawn, too many pending, or (under load) over the app's share of the page's time.
    expect(Object.keys(counts).filter((code) => !['USER_ACTIVATION_REQUIRED', 'CANCELLED', 'UI_BUSY', 'VALIDATION_BUDGET'].includes(code)), JSON.stringify(counts)).toEqual([])
    await expect.poll(() => shell.page.evaluate(() => (window as any).neutron.kernel.grants.pending().length)).toBe(0)
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.grants.sessions())).toEqual([])
    // The dialog closes on the render after its last request went away.
    await expect.poll(() => shell.page.isVisible('#grant-dialog[open]')).toBe(false)
    expect((await auditSince(shell.page, since)).filter((e) => e.callerApp === 'siege').length).toBeLessThanOrEqual(100)
  })

  it('a request an app swaps in for one the person is looking at is refused: the dialog took the focus, so its gesture is gone', async () => {
    await ensureSiegeTile()
    // The person is using the siege tile: its app may ask (dialog-gate.ts).
    const g = await gestures(shell.page)
    await g.quiet()
    await g.clickFrame(siegeTile)
    await g.close()
    const swapped = await s.evaluate(() => {
      const x = (globalThis as any).siege
      const first = new AbortController()
      void x.bus.requestPermission({ app: 'witness', scope: 'call' }, { signal: first.signal }).catch(() => {})
      return new Promise((r) => setTimeout(() => {
        first.abort()
        x.bus.requestPermission({ app: 'witness', scope: 'session', reason: 'swapped' }).then(() => r('granted'), (e: { code: string }) => r(e.code))
      }, 600))
    })
    // The first was drawn (armed only later: hostile.test.ts); the one swapped in never is.
    expect(swapped).toBe('USER_ACTIVATION_REQUIRED')
    await expect.poll(() => shell.page.evaluate(() => (window as any).neutron.kernel.grants.pending().length)).toBe(0)
    expect(await shell.page.isVisible('#grant-dialog[open]')).toBe(false)
  })

  it('a one-call grant survives the target reloading, is used once by the new document, then is gone', async () => {
    await grant(shell.page, witnessTile, 'witness', 'siege', 'call')
    await reloadSiegeBackground()
    expect((await fixtureState<Record<string, number>>(siegeBg, 'invokes')).slow ?? 0).toBe(0)
    expect(await w.evaluate((t) => (globalThis as any).witness.call(t, 'slow', { ms: 1 }), SIEGE_BG)).toEqual({ ok: { done: true } })
    expect(await w.evaluate((t) => (globalThis as any).witness.call(t, 'slow', { ms: 1 }), SIEGE_BG)).toEqual({ error: 'GRANT_REQUIRED' })
    expect((await fixtureState<Record<string, number>>(siegeBg, 'invokes')).slow).toBe(1)
  })

  it('a one-call grant used by a call the target never answered (it reloaded) is not given back', async () => {
    await grant(shell.page, witnessTile, 'witness', 'siege', 'call')
    const pending = w.evaluate((t) => (globalThis as any).witness.call(t, 'slow', { ms: 5_000 }), SIEGE_BG)
    await expect.poll(async () => (await fixtureState<Record<string, number>>(siegeBg, 'invokes')).slow).toBe(2)
    await reloadSiegeBackground()
    expect(await pending).toEqual({ error: 'ENDPOINT_GONE' })
    expect(await w.evaluate((t) => (globalThis as any).witness.call(t, 'slow', { ms: 1 }), SIEGE_BG)).toEqual({ error: 'GRANT_REQUIRED' })
  })
})

describe('handshake races', () => {
  const racer = async (mode: string) => {
    const opened = await shell.page.evaluate((m) => (window as any).neutron.workspaces.openTile('racer', { mode: m }), mode)
    const handle = await shell.page.waitForSelector(`iframe[src*="mode=${mode}"]`, { state: 'attached' })
    const frame = (await handle.contentFrame())!
    await frame.waitForFunction(() => (globalThis as any).fixture?.done === true, undefined, { timeout: 20_000 })
    return { endpoint: opened.endpoint as string, frame, slot: (opened.endpoint as string).split(':')[3]! }
  }
  const close = (slot: string) => shell.page.evaluate((x) => (window as any).neutron.workspaces.closeTile(x), slot)

  it('two readies for two probes: one binding, one port; the second is a repeated handshake', async () => {
    const since = await lastSeq(shell.page)
    const { endpoint, frame, slot } = await racer('two-ready')
    expect(await fixtureState(frame, 'connects')).toBe(1)
    expect((await liveEndpoints(shell.page)).filter((id) => id.startsWith('app:racer:'))).toEqual([endpoint])
    one(await auditSince(shell.page, since), { caller: endpoint, code: 'HANDSHAKE_REPEATED' })
    await close(slot)
  })

  it('a ready that offers the kernel a port of its own is ignored; the kernel never uses that port', async () => {
    const since = await lastSeq(shell.page)
    const { endpoint, frame, slot } = await racer('ported-ready')
    expect(await fixtureState(frame, 'connects')).toBe(1)
    expect(await fixtureState(frame, 'offeredPortMessages')).toBe(0)
    expect((await auditSince(shell.page, since)).some((e) => e.code === 'WINDOW_MESSAGE_IGNORED' && e.callerApp === 'racer')).toBe(true)
    expect(await liveEndpoints(shell.page)).toContain(endpoint)
    await close(slot)
  })

  it("a nested frame answering with its parent's nonce after the parent bound is an unknown source of that app", async () => {
    const since = await lastSeq(shell.page)
    const { endpoint, slot } = await racer('nested-after')
    await expect.poll(async () => (await auditSince(shell.page, since)).some((e) => e.code === 'UNKNOWN_SOURCE')).toBe(true)
    one(await auditSince(shell.page, since), { code: 'UNKNOWN_SOURCE', caller: `${endpoint}>nested`, callerApp: 'racer' })
    expect((await liveEndpoints(shell.page)).filter((id) => id.startsWith('app:racer:'))).toEqual([endpoint])
    await close(slot)
  })

  it('a port transferred inside an exec is closed and the message refused, never adopted', async () => {
    const since = await lastSeq(shell.page)
    const { endpoint, frame, slot } = await racer('transfer-exec')
    await expect.poll(async () => (await auditSince(shell.page, since)).some((e) => e.caller === endpoint)).toBe(true)
    one(await auditSince(shell.page, since), { caller: endpoint, code: 'MALFORMED_MESSAGE' })
    expect(await fixtureState(frame, 'offeredPortMessages')).toBe(0)
    expect(await fixtureState<unknown[]>(frame, 'answers')).toEqual([])
    await close(slot)
  })
})

describe('after every attack', () => {
  it('nothing non-JSON or over 1 MiB reached any siege or witness frame, and the page raised no errors', assertNothingSmuggled)
})
