/**
 * Harness for the hardening probes (`siege-*.test.ts`): one real `wrangler dev`
 * and Chromium per file, with a hostile app of their own (`fixtures/siege`), an
 * honest app that measures and judges (`fixtures/witness`), and a page that
 * races the handshake (`siege/racer`). The frames are exported as live
 * bindings: a probe that gets a frame disconnected reloads it, and every test
 * sees the new one.
 *
 * During an attack, `duringAttack` measures how long an ordinary kernel call
 * waits and records the figures, printed after the file. Everything that
 * reaches a witness or siege frame is judged by an independent strict check
 * (`witness/shape.ts`): `assertNothingSmuggled` proves nothing non-JSON and
 * nothing over 1 MiB arrived.
 *
 * @example
 * setupSiege()
 * it('…', async () => { const { value } = await duringAttack('name', () => run('hammer', …)) })
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { type AuditRow, fixtureState, frameOf, install, liveEndpoints, openShell, openTile, type Shell, waitForEndpoint } from './shell.ts'

export const MiB = 1024 * 1024
export const LATENCY_MS = 50
export const SIEGE_BG = 'app:siege:background'
export const WITNESS_BG = 'app:witness:background'
export const SIEGE = {
  id: 'siege',
  version: '1.0.0',
  title: 'Siege',
  // The tray page is the tile's (a tray is declared so that tray.set_state is accepted from the background).
  entries: { tile: '/fixtures/siege/tile', tray: '/fixtures/siege/tile', background: '/fixtures/siege/background' },
  tools: ['inspect', 'wide_in', 'wide_out', 'smuggle_result', 'flood', 'slow', 'wide_2000', 'hold'],
  permissions: ['witness'],
  agentEntrypoints: ['inspect'],
}
/** More apps on the siege app's pages: colluders (each its own app id, so its own share of everything). */
export const colluder = (id: string) => ({ ...SIEGE, id, title: `Siege ${id}` })
const WITNESS = {
  id: 'witness',
  version: '1.0.0',
  title: 'Witness',
  entries: { tile: '/fixtures/witness/tile', background: '/fixtures/witness/background' },
  tools: ['inspect', 'bytes'],
  permissions: ['siege'],
}
const RACER = { id: 'racer', version: '1.0.0', title: 'Racer', entries: { tile: '/fixtures/siege/racer' }, tools: [] }

export type Outcome = { ok?: any; error?: { code: string; message: string; retryAfterMs?: number }; thrown?: string }
export let shell: Shell
export let siegeTile: string
export let witnessTile: string
export let s: Frame
export let w: Frame
export let siegeBg: Frame
export let witnessBg: Frame
export const figures: string[] = []

export const run = <T = Outcome>(fn: string, ...args: unknown[]): Promise<T> =>
  s.evaluate(([fn, args]) => (globalThis as any).siege[fn as string](...(args as unknown[])), [fn, args] as const)

/**
 * Waits until `app`'s share of the trusted page's time is whole again: a probe about what a
 * message's contents draw must not meet the refusal (VALIDATION_BUDGET) an earlier probe's
 * spending earned, however slow the machine made that spending.
 */
export const shareWhole = (app = 'siege') =>
  shell.page.waitForFunction((a) => (window as any).neutron.kernel.work.left(a) >= (window as any).neutron.kernel.work.burstMs, app)

/**
 * Runs `attack` while (a) the witness app calls the kernel every 10 ms and (b) the trusted page
 * pings itself through a MessageChannel every 10 ms — the same task queue port messages wait in,
 * so (b) is how long any message waits for the kernel. Returns the attack's value, the worst
 * kernel wait (`max`) and the worst witness round trip (`roundTrip`, which also includes the app
 * frames' own renderer, shared by every sandboxed app frame, attacker included).
 */
export async function duringAttack<T>(name: string, attack: () => Promise<T>, options: { witness?: boolean; guard?: boolean } = {}): Promise<{ value: T; max: number; roundTrip: number }> {
  const witness = options.witness ?? true
  const pinging = witness ? w.evaluate(() => (globalThis as any).witness.ping(10)) : Promise.resolve({ count: 0, max: -1, p50: -1, errors: [] })
  await shell.page.evaluate(() => {
    const probe = { samples: [] as number[], stop: false, long: [] as number[], observer: new PerformanceObserver((list) => list.getEntries().forEach((e) => probe.long.push(Math.round(e.duration)))) }
    probe.observer.observe({ type: 'longtask' })
    const work = (window as any).neutron.kernel.work
    if (work) work.longestMs = 0
    const channel = new MessageChannel()
    let sent = 0
    channel.port1.onmessage = () => {
      probe.samples.push(performance.now() - sent)
      if (!probe.stop) setTimeout(() => ((sent = performance.now()), channel.port2.postMessage(0)), 10)
    }
    sent = performance.now()
    channel.port2.postMessage(0)
    ;(window as any).__probe = probe
  })
  await shell.page.waitForTimeout(50)
  let value: T
  try {
    value = await attack()
  } finally {
    if (witness) await w.evaluate(() => (globalThis as any).witness.stopPing())
  }
  const ping = await pinging
  const probe = await shell.page.evaluate(() => {
    const p = (window as any).__probe
    p.stop = true
    p.observer.disconnect()
    const sorted = [...p.samples].sort((a: number, b: number) => a - b)
    return { max: Math.round(sorted.at(-1) ?? 0), p95: Math.round(sorted[Math.floor(sorted.length * 0.95)] ?? 0), count: sorted.length, long: p.long.sort((a: number, b: number) => b - a).slice(0, 5), kernel: Math.round(((window as any).neutron.kernel.work?.longestMs ?? -1) * 10) / 10 }
  })
  figures.push(`${name}: longest kernel handling of one message ${probe.kernel} ms; trusted-page queue worst ${probe.max} ms, p95 ${probe.p95} ms (${probe.count} probes; longest tasks ${probe.long.join(', ') || 'none'} ms)` + (witness ? `; witness round trip worst ${ping.max} ms, median ${ping.p50} ms (${ping.count} calls)` : ''))
  if (witness) expect(ping.errors).toEqual([])
  expect(probe.count).toBeGreaterThan(3)
  // The target is 50 ms, and the figures are reported against it. Wall-clock bounds on a shared
  // 2-core machine are noisy (whole-machine stalls of 100 ms+ happen with no attack at all), so
  // the test only guards against the multi-second freezes the unbounded kernel had (p95 under
  // 500 ms: 236 ms was seen at load average 12 with no freeze).
  if (options.guard ?? true) expect(probe.p95).toBeLessThan(10 * LATENCY_MS)
  return { value, max: probe.max, roundTrip: ping.max }
}

/** Reloads the siege background's document and waits for its new session to register its tools. */
export async function reloadSiegeBackground() {
  const session = await shell.page.evaluate((id) => (window as any).neutron.kernel.endpoints.get(id)?.session ?? 0, SIEGE_BG)
  await siegeBg.evaluate(() => void setTimeout(() => location.reload(), 0))
  await shell.page.waitForFunction(([id, old]) => {
    const ep = (window as any).neutron.kernel.endpoints.get(id)
    return !!ep && ep.session !== old && ep.tools.has('hold')
  }, [SIEGE_BG, session] as const)
  siegeBg = await frameOf(shell.page, SIEGE_BG)
}

/** Reloads the siege tile's document (after a test got it disconnected) and finds its new endpoint. */
export async function reloadSiegeTile() {
  const slot = siegeTile.split(':')[3]!
  await s.evaluate(() => void setTimeout(() => location.reload(), 0))
  await shell.page.waitForFunction(([slot, old]) => (window as any).neutron.kernel.endpoints.list().some((e: { id: string }) => e.id.startsWith(`app:siege:tile:${slot}:`) && e.id !== old), [slot, siegeTile] as const)
  siegeTile = (await liveEndpoints(shell.page)).find((id) => id.startsWith(`app:siege:tile:${slot}:`))!
  s = await frameOf(shell.page, siegeTile)
  await s.evaluate(() => (globalThis as any).siege.ready)
}

/**
 * A live siege tile: an attack before may have got it disconnected (on a loaded machine its
 * spam runs past its share of the page's time while others wait, and the flood rule ends it).
 */
export async function ensureSiegeTile() {
  if (!(await liveEndpoints(shell.page)).includes(siegeTile)) await reloadSiegeTile()
}

export function one(entries: AuditRow[], match: Partial<AuditRow>): AuditRow {
  const found = entries.filter((e) => Object.entries(match).every(([k, v]) => (e as any)[k] === v))
  expect(found, `audit entry ${JSON.stringify(match)}`).toHaveLength(1)
  return found[0]!
}

/** Opens the shell with the siege, witness and racer apps for this file, and closes it after. */
export function setupSiege(): void {
  beforeAll(openSiege)
  afterAll(async () => {
    if (figures.length) console.log(`[figures]\n  ${figures.join('\n  ')}`)
    await shell?.close()
  })
}

async function openSiege() {
  shell = await openShell({ demo: false })
  for (const manifest of [SIEGE, WITNESS, RACER]) await install(shell.page, manifest)
  await waitForEndpoint(shell.page, SIEGE_BG, ['inspect', 'wide_in', 'wide_out', 'smuggle_result', 'flood', 'slow'])
  await waitForEndpoint(shell.page, WITNESS_BG, ['inspect'])
  siegeTile = await openTile(shell.page, 'siege')
  witnessTile = await openTile(shell.page, 'witness')
  s = await frameOf(shell.page, siegeTile)
  w = await frameOf(shell.page, witnessTile)
  await s.evaluate(() => (globalThis as any).siege.ready)
  await w.evaluate(() => (globalThis as any).witness.ready)
  siegeBg = await frameOf(shell.page, SIEGE_BG)
  witnessBg = await frameOf(shell.page, WITNESS_BG)
}

/** Nothing non-JSON or over 1 MiB reached any siege or witness frame, and the page raised no errors. */
export async function assertNothingSmuggled(): Promise<void> {
  expect(await fixtureState(witnessBg, 'worst')).toMatchObject({ nonJson: 0 })
  expect((await fixtureState<{ bytes: number }>(witnessBg, 'worst')).bytes).toBeLessThanOrEqual(MiB)
  expect(await w.evaluate(() => (globalThis as any).witness.seen)).toMatchObject({ nonJson: 0 })
  expect(await w.evaluate(() => (globalThis as any).witness.seen.maxBytes)).toBeLessThanOrEqual(MiB + 100) // a 1 MiB result and its envelope
  const received = await s.evaluate(() => (globalThis as any).siege.received)
  expect(received, JSON.stringify(received.problems)).toMatchObject({ nonJson: 0 })
  expect(shell.errors).toEqual([])
}
