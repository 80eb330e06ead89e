/**
 * Hardening probes, part four (harness: `support/siege.ts`): work an app can make the trusted page
 * do that no check bounded, and things it can hold or flush. Payloads cheap to send and costly to
 * read; a flood of actions that all succeed; attachments held by calls that never end; colluding
 * apps drawing denials by the hundred; frames nested deeper than the kernel looked. Each runs
 * while the witness app and a trusted-page probe measure how long ordinary work waits; the figures
 * are printed after the file.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { audit, auditSince, frameOf, install, lastSeq, liveEndpoints, openTile, waitForEndpoint } from './support/shell.ts'
import { MiB, SIEGE_BG, WITNESS_BG, assertNothingSmuggled, colluder, duringAttack, figures, reloadSiegeBackground, reloadSiegeTile, run, s, setupSiege, shell, siegeBg, siegeTile, w } from './support/siege.ts'

setupSiege()

const COLLUDERS = ['siege2', 'siege3', 'siege4']
const colluderTiles: Record<string, string> = {}

beforeAll(async () => {
  for (const id of COLLUDERS) {
    await install(shell.page, colluder(id))
    await waitForEndpoint(shell.page, `app:${id}:background`)
    colluderTiles[id] = await openTile(shell.page, id)
    await (await frameOf(shell.page, colluderTiles[id]!)).evaluate(() => (globalThis as any).siege.ready)
  }
})

/** Reloads a colluder's tile document (its holds end with it) and finds its new endpoint. */
async function reloadColluderTile(app: string) {
  const old = colluderTiles[app]!
  await (await frameOf(shell.page, old)).evaluate(() => void setTimeout(() => location.reload(), 0))
  const slot = old.split(':')[3]!
  await shell.page.waitForFunction(([a, s, o]) => (window as any).neutron.kernel.endpoints.list().some((e: { id: string }) => e.id.startsWith(`app:${a}:tile:${s}:`) && e.id !== o), [app, slot, old] as const)
  colluderTiles[app] = (await liveEndpoints(shell.page)).find((id) => id.startsWith(`app:${app}:tile:${slot}:`))!
  await (await frameOf(shell.page, colluderTiles[app]!)).evaluate(() => (globalThis as any).siege.ready)
}
const flooded = async (since: number, caller: string) => (await auditSince(shell.page, since)).filter((e) => e.caller === caller && e.code === 'FLOODED')

describe('payloads cheap to send and costly to read', () => {
  it.each([
    ['objects', '349,000 empty objects'],
    ['zeros', '500,000 zeros'],
  ] as const)('one message of %s is refused for its node count (PAYLOAD_TOO_LARGE), before the kernel walks it all', async (kind, what) => {
    try {
      const { value } = await duringAttack(`one kernel call whose arguments are ${what} (under 1 MiB)`, () => run<{ counts: Record<string, number> }>('costly', kind, 0, 1), { guard: false })
      figures.push(`  answers: ${JSON.stringify(value.counts)}`)
      expect(Object.keys(value.counts)).toEqual(['PAYLOAD_TOO_LARGE'])
    } finally {
      if (!(await liveEndpoints(shell.page)).includes(siegeTile)) await reloadSiegeTile()
    }
  })

  it.each([
    ['objects', '349,000 empty objects'],
    ['zeros', '500,000 zeros'],
  ] as const)('%s looped for 8 s: the sender is disconnected once what it costs the page is past its share; the witness keeps being answered', async (kind, what) => {
    const since = await lastSeq(shell.page)
    try {
      const { value, max, roundTrip } = await duringAttack(`kernel calls with ${what}, looped for 8 s, 2 at a time`, () => run<{ counts: Record<string, number>; sent: number }>('costly', kind, 8_000, 2), { guard: false })
      figures.push(`  sent ${value.sent}; answers ${JSON.stringify(value.counts)}; page queue worst ${max} ms, witness worst ${roundTrip} ms`)
      expect(value.counts.ok ?? 0).toBe(0)
      expect(await flooded(since, siegeTile)).toHaveLength(1)
      // The loop ended because its port was closed, not because the 8 s ran out.
      expect(value.counts.NO_ANSWER).toBeGreaterThan(0)
    } finally {
      await reloadSiegeTile()
    }
  }, 60_000)
})

describe('a flood of actions that all succeed', () => {
  it('20,000 tray.set_state from one background: disconnected (FLOODED), and an idle app is answered meanwhile', async () => {
    const since = await lastSeq(shell.page)
    try {
      const { value: counts, max, roundTrip } = await duringAttack('20,000 tray.set_state sent at once by one background', () => siegeBg.evaluate(() => (globalThis as any).trayFlood(20_000)), { guard: false })
      figures.push(`  answers: ${JSON.stringify(counts)}; page queue worst ${max} ms, witness worst ${roundTrip} ms`)
      expect(await flooded(since, SIEGE_BG)).toHaveLength(1)
      expect(counts.ok ?? 0).toBeLessThan(5_000)
      // The victim's calls are never stuck behind the whole flood (it took 5–7 s before).
      expect(roundTrip).toBeLessThan(2_000)
    } finally {
      await reloadSiegeBackground()
    }
  }, 60_000)
})

describe('attachments held by calls that never end', () => {
  const holds = (frame: typeof s) => frame.evaluate(() => (globalThis as any).siege.clicks.holds as { ok?: unknown; error?: { code: string; retryAfterMs?: number } }[])

  it('two apps holding the whole 64 MiB cannot starve a third: over their share, their oldest holds are ended and the third is served', async () => {
    const other = await frameOf(shell.page, colluderTiles.siege2!)
    // The probes above spent the siege app's share of the page's time; these calls are not about that.
    await shell.page.waitForFunction(() => ['siege', 'siege2'].every((app) => (window as any).neutron.kernel.work.left(app) >= 20), undefined, { timeout: 30_000 })
    try {
      for (const [frame, app] of [[s, 'siege'], [other, 'siege2']] as const) {
        for (let i = 0; i < 2; i++) await frame.evaluate(([bg]) => (globalThis as any).siege.hold(bg, 16 * 1024 * 1024, 300), [`app:${app}:background`] as const)
      }
      await expect.poll(() => shell.page.evaluate(() => (window as any).neutron.kernel.calls.attachments.held()), { timeout: 20_000 }).toBe(64 * MiB).catch(async (error) => {
        throw new Error(`${error}: holds ${JSON.stringify([...(await holds(s)), ...(await holds(other))])}`)
      })
      const outcomes: unknown[] = []
      for (let i = 0; i < 3; i++) outcomes.push(await w.evaluate(() => (globalThis as any).witness.sendBytes(16 * 1024 * 1024)))
      figures.push(`attachments: two apps holding 64 MiB, the third sends 3 × 16 MiB: ${JSON.stringify(outcomes)}`)
      expect(outcomes).toEqual(Array(3).fill({ ok: { bytes: 16 * MiB } }))
      const ended = [...(await holds(s)), ...(await holds(other))]
      expect(ended.length).toBeGreaterThan(0)
      expect(ended.every((o) => o.error?.code === 'ATTACHMENT_BUDGET'), JSON.stringify(ended)).toBe(true)
    } finally {
      // End the rest (the tiles reload): nothing stays held.
      await reloadSiegeTile()
      await reloadColluderTile('siege2')
      await expect.poll(() => shell.page.evaluate(() => (window as any).neutron.kernel.calls.attachments.held()), { timeout: 20_000 }).toBe(0)
    }
  }, 90_000)

  it('retryAfterMs is true: refused over its own budget, an endpoint is told when its held bytes are released, and is served then', async () => {
    await shell.page.waitForFunction(() => (window as any).neutron.kernel.work.left('siege') >= 20, undefined, { timeout: 30_000 })
    for (let i = 0; i < 2; i++) await s.evaluate(() => (globalThis as any).siege.hold('app:siege:background', 16 * 1024 * 1024, 4))
    await expect.poll(() => shell.page.evaluate(() => (window as any).neutron.kernel.calls.attachments.held()), { timeout: 20_000 }).toBe(32 * MiB)
    const refused = await run<{ error?: { code: string; retryAfterMs?: number } }>('attach', SIEGE_BG, 'hold', 16 * 1024 * 1024, 1)
    const refusedAt = Date.now()
    figures.push(`attachments: over its own 32 MiB, refused with ${JSON.stringify(refused.error)} (its holds end 4 s after they began)`)
    expect(refused.error?.code).toBe('ATTACHMENT_BUDGET')
    expect(refused.error!.retryAfterMs!).toBeGreaterThan(2_000)
    expect(refused.error!.retryAfterMs!).toBeLessThan(4_500)
    // By then its holds have ended (their calls' own timeouts): the bytes are free (timers on a loaded machine fire a little late).
    await new Promise((r) => setTimeout(r, refused.error!.retryAfterMs! - (Date.now() - refusedAt)))
    await expect.poll(() => shell.page.evaluate(() => (window as any).neutron.kernel.calls.attachments.held()), { timeout: 1_500, interval: 50 }).toBe(0)
  }, 60_000)
})

describe('the audit keeps what matters', () => {
  it("four colluding apps drawing 240 denials do not flush another app's denials", async () => {
    await w.evaluate(async (target) => {
      for (let i = 0; i < 62; i++) await (globalThis as any).witness.call(target, 'inspect', {})
    }, SIEGE_BG)
    const mine = () => audit(shell.page).then((entries) => entries.filter((e) => e.callerApp === 'witness' && e.code === 'GRANT_REQUIRED'))
    const before = await mine()
    expect(before.length).toBeGreaterThanOrEqual(60)
    const started = Date.now()
    await Promise.all(['siege', ...COLLUDERS].map(async (app) => {
      const frame = app === 'siege' ? s : await frameOf(shell.page, colluderTiles[app]!)
      return frame.evaluate((target) => (globalThis as any).siege.repeat(60, target, 'inspect', {}), WITNESS_BG)
    }))
    const after = await mine()
    figures.push(`audit: 4 apps drew 240 denials in ${Date.now() - started} ms; the witness kept ${after.length} of its ${before.length} denials (its first kept: ${after.some((e) => e.seq === before[0]!.seq)}, its latest: ${after.some((e) => e.seq === before.at(-1)!.seq)})`)
    // Its oldest and latest denials are never taken for another app's, and it keeps a fair share of the rest.
    expect(after.some((e) => e.seq === before[0]!.seq)).toBe(true)
    expect(after.some((e) => e.seq === before.at(-1)!.seq)).toBe(true)
    expect(after.length).toBeGreaterThanOrEqual(30)
    // Each colluder keeps its latest denial too.
    const entries = await audit(shell.page)
    for (const app of ['siege', ...COLLUDERS]) expect(entries.some((e) => e.callerApp === app && e.code === 'GRANT_REQUIRED')).toBe(true)
  }, 60_000)

  it('a frame nested 17 levels deep is attributed to the app whose frame it is nested in', async () => {
    const since = await lastSeq(shell.page)
    await s.evaluate(() => (globalThis as any).siege.nestedDeep(17))
    await expect.poll(async () => (await auditSince(shell.page, since)).filter((e) => e.code === 'UNKNOWN_SOURCE').length, { timeout: 20_000 }).toBeGreaterThan(0)
    const entries = (await auditSince(shell.page, since)).filter((e) => e.code === 'UNKNOWN_SOURCE')
    figures.push(`nesting: a window message from 17 levels deep was recorded as ${JSON.stringify(entries.map((e) => [e.caller, e.callerApp]))}`)
    expect(entries.every((e) => e.caller === `${siegeTile}>nested` && e.callerApp === 'siege')).toBe(true)
  })
})

describe('after every attack', () => {
  it('nothing non-JSON or over 1 MiB reached any siege or witness frame, and the page raised no errors', assertNothingSmuggled)
})
