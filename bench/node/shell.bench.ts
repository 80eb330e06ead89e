/**
 * Shell message-bus benchmark in real Chromium.
 *
 * Routed: tile → kernel → background → kernel → tile through the SDK and the
 * kernel broker (envelope and JSON checks at both hops, policy, limits, input
 * and output schema validation at the endpoint and at the kernel, audit).
 * Physical limit: a raw relay of the same envelope bytes over the same two
 * MessagePorts in the same page — the kernel's ends of the tile's and the
 * background's private ports just forward, and the background echoes.
 */
import type { Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { frameOf, install, openShell, openTile, type Shell, waitForEndpoint } from '../../test/browser/support/shell.ts'

const BG = 'app:bench:background'
const TEXT = 'Quarterly roadmap review: search notes for themes, risks and owners; summarise for the agenda.'.padEnd(128, '.')
let shell: Shell
let tileId: string
let tile: Frame
let background: Frame

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, { id: 'bench', version: '1', title: 'Bench', entries: { tile: '/fixtures/bench/tile', background: '/fixtures/bench/background' }, tools: ['echo', 'echo_bytes'] })
  await waitForEndpoint(shell.page, BG, ['echo', 'echo_bytes'])
  tileId = await openTile(shell.page, 'bench')
  tile = await frameOf(shell.page, tileId)
  background = await frameOf(shell.page, BG)
  await tile.evaluate(() => (globalThis as any).bench.ready)
})
afterAll(() => shell?.close())

/** Swaps the kernel's handlers on the two ports for a plain forwarder (and back). */
function relay(page: Page, on: boolean) {
  return page.evaluate(([tileId, bg, on]) => {
    const k = (window as any).neutron.kernel
    const a: MessagePort = k.endpoints.get(tileId).port
    const b: MessagePort = k.endpoints.get(bg).port
    const w = window as any
    if (on) {
      w.saved = [a.onmessage, b.onmessage]
      w.relayTime ??= 0
      w.relayMessages ??= 0
      const forward = (to: MessagePort) => (e: MessageEvent) => {
        const t = performance.now()
        to.postMessage(e.data, e.data.attachment ? [e.data.attachment] : [])
        w.relayTime += performance.now() - t
        w.relayMessages++
      }
      a.onmessage = forward(b)
      b.onmessage = forward(a)
    } else [a.onmessage, b.onmessage] = w.saved
  }, [tileId, BG, on] as const)
}

async function routed(total: number, concurrency: number): Promise<number> {
  return tile.evaluate(([n, c, t]) => (globalThis as any).bench.routed(n, c, t), [total, concurrency, TEXT] as const)
}

async function raw(total: number, concurrency: number): Promise<number> {
  return rawly(() => tile.evaluate(([n, c, t]) => (globalThis as any).bench.raw(n, c, t), [total, concurrency, TEXT] as const))
}

/** Runs `work` while the kernel's two ports only relay (transferring attachments) and the background echoes raw. */
async function rawly<T>(work: () => Promise<T>): Promise<T> {
  await relay(shell.page, true)
  await background.evaluate(() => (globalThis as any).bench.raw(true))
  try {
    return await work()
  } finally {
    await background.evaluate(() => (globalThis as any).bench.raw(false))
    await relay(shell.page, false)
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

describe('shell bus in Chromium', () => {
  it('routed callTool vs a raw relay of the same bytes over the same ports', async () => {
    // Both paths really work end to end before anything is timed.
    expect(await tile.evaluate((t) => (globalThis as any).bench.routed(1, 1, t).then(() => 'ok'), TEXT)).toBe('ok')
    await routed(1_000, 1)
    await raw(1_000, 1)

    const N = 3_000
    const seq = { routed: [] as number[], raw: [] as number[], ratio: [] as number[] }
    for (let round = 0; round < 5; round++) {
      const r = ((await routed(N, 1)) / N) * 1000
      const w = ((await raw(N, 1)) / N) * 1000
      seq.routed.push(r)
      seq.raw.push(w)
      seq.ratio.push(r / w)
    }
    const M = 16_000
    const par = { routed: [] as number[], raw: [] as number[], ratio: [] as number[] }
    for (let round = 0; round < 3; round++) {
      const r = M / ((await routed(M, 8)) / 1000)
      const w = M / ((await raw(M, 8)) / 1000)
      par.routed.push(r)
      par.raw.push(w)
      par.ratio.push(w / r)
    }
    // The kernel's own work per routed call (both hops through the broker), timed inside the page.
    await shell.page.evaluate(() => {
      const broker = (window as any).neutron.kernel.broker
      const original = broker.onMessage.bind(broker)
      const w = window as any
      w.brokerTime = 0
      w.brokerMessages = 0
      broker.onMessage = (ep: unknown, data: unknown) => {
        const t = performance.now()
        original(ep, data)
        w.brokerTime += performance.now() - t
        w.brokerMessages++
      }
    })
    await routed(N, 1)
    await shell.page.evaluate(() => Object.assign(window as any, { relayTime: 0, relayMessages: 0 }))
    await raw(N, 1)
    const cpu = await shell.page.evaluate(() => {
      const w = window as any
      return { broker: w.brokerTime as number, brokerMessages: w.brokerMessages as number, relay: w.relayTime as number, relayMessages: w.relayMessages as number }
    })
    expect(cpu.brokerMessages).toBe(2 * N)
    expect(cpu.relayMessages).toBe(2 * N)

    const envelope = JSON.stringify({ type: 'exec', id: 1, payload: { action: 'tools.call', payload: { target: BG, name: 'echo', arguments: { text: TEXT } } } })
    console.log(
      [
        `shell bus, Chromium ${shell.browser.version()}, request envelope ${envelope.length} B; 5 rounds × ${N} sequential calls, 3 rounds × ${M} calls at 8 in flight; routed and raw alternate within each round`,
        `  routed callTool round trip (1 in flight): ${median(seq.routed).toFixed(1)} µs/call (rounds: ${seq.routed.map((x) => x.toFixed(0)).join(', ')})`,
        `  raw relay, same bytes, same two ports:    ${median(seq.raw).toFixed(1)} µs/call (rounds: ${seq.raw.map((x) => x.toFixed(0)).join(', ')})`,
        `  ratio routed/raw: ${median(seq.ratio).toFixed(2)}× median of per-round ratios (${seq.ratio.map((x) => x.toFixed(2)).join(', ')}); target ≤ 2×`,
        `  8 in flight: routed ${Math.round(median(par.routed))} calls/s, raw relay ${Math.round(median(par.raw))} calls/s; raw/routed ${median(par.ratio).toFixed(2)}×`,
        `  trusted-page CPU per call, both hops: broker ${((cpu.broker / N) * 1000).toFixed(1)} µs vs raw relay ${((cpu.relay / N) * 1000).toFixed(1)} µs (postMessage alone)`,
      ].join('\n'),
    )
    // Tens of thousands of calls later the audit ring is still bounded (one app holds at most half of it).
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.audit.list().length)).toBe(100)
  })

  it('a 16 MiB attachment round trip vs a raw transfer of the same buffer over the same ports', async () => {
    const BYTES = 16 * 1024 * 1024
    type Bounce = { ms: number; detached: boolean }
    const routedBytes = (n: number): Promise<Bounce> => tile.evaluate(([n, b]) => (globalThis as any).bench.routedBytes(n, b), [n, BYTES] as const)
    const rawBytes = (n: number): Promise<Bounce> => rawly(() => tile.evaluate(([n, b]) => (globalThis as any).bench.rawBytes(n, b), [n, BYTES] as const))
    expect((await routedBytes(5)).detached).toBe(true) // transferred at every leg, never copied into the sender
    expect((await rawBytes(5)).detached).toBe(true)
    // Each leg crosses frames by transfer (~40 ms per 16 MiB round trip here), so a few round trips per round suffice.
    const N = 20
    const rounds = { routed: [] as number[], raw: [] as number[], ratio: [] as number[] }
    for (let round = 0; round < 5; round++) {
      const r = (await routedBytes(N)).ms / N
      const w = (await rawBytes(N)).ms / N
      rounds.routed.push(r * 1000)
      rounds.raw.push(w * 1000)
      rounds.ratio.push(r / w)
    }
    console.log(
      [
        `16 MiB attachment, ${N} round trips × 5 rounds, routed and raw alternating`,
        `  routed (SDK + kernel, attachment budget): ${median(rounds.routed).toFixed(1)} µs/round trip (rounds: ${rounds.routed.map((x) => x.toFixed(0)).join(', ')})`,
        `  raw transfer, same buffer, same ports:    ${median(rounds.raw).toFixed(1)} µs/round trip (rounds: ${rounds.raw.map((x) => x.toFixed(0)).join(', ')})`,
        `  ratio routed/raw: ${median(rounds.ratio).toFixed(2)}× median of per-round ratios (${rounds.ratio.map((x) => x.toFixed(2)).join(', ')}); target ≤ 1.2×`,
      ].join('\n'),
    )
    expect(await shell.page.evaluate(() => (window as any).neutron.kernel.calls.attachments.held())).toBe(0)
  })
})
