/**
 * `canister.query_self` in real Chromium against a real `wrangler dev`: an app tile reads its own
 * backend (tile → kernel → the signed-in client's fetch → worker gate → installation object → the
 * backend's isolate → `state.get` → back to the tile), against the trusted page making a plain
 * `fetch` to the same worker route doing the same read (`POST …/call` for `count`), and, for
 * scale, a plain route reading the same object without an isolate (`GET /v1/apps/installs/{app}`).
 * Same page, same run, interleaved per round; the ratio is taken per round, then the median.
 * Target: query_self ≤ 1.5× the plain fetch of the same read.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { COUNTER } from '../../test/fixtures/apps/packages.ts'
import { frameOf, install, openShell, openTile, type Shell, signInOverInstalls } from '../../test/browser/support/shell.ts'

const PAIRS = 300
const WARMUP = 30
let shell: Shell
let tile: Frame

beforeAll(async () => {
  shell = await openShell({ demo: false })
  const { token } = (await (await fetch(`${shell.dev.url}/v1/dev/token`, { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })).json()) as { token: string }
  const server = new NeuronClient({ url: shell.dev.url, token })
  await server.apps.install((await server.apps.upload(COUNTER as never)).hash)
  await server.apps.app('counter').call('increment', { by: 1 })
  // Signed in, the shell runs the person's counter from the server once its installs arrive: the
  // fixture's frontend (which hands the bench the SDK) goes in after that, over the same backend.
  await signInOverInstalls(shell.page, ['counter'])
  await install(shell.page, { id: 'counter', version: '1.0.0', title: 'Counter', entries: { tile: '/fixtures/backend/tile' }, tools: [] })
  tile = await frameOf(shell.page, await openTile(shell.page, 'counter'))
  await tile.evaluate(() => (globalThis as any).fixture.ready)
}, 180_000)
afterAll(() => shell?.close())

/** ms per call of `n` sequential query_self calls from the tile through the SDK, timed inside the tile. */
const viaShell = (n: number): Promise<number> =>
  tile.evaluate(async (n) => {
    const { canister } = (globalThis as any).fixture.sdk
    const started = performance.now()
    for (let i = 0; i < n; i++) {
      const answer = await canister.querySelf('count', {})
      if (answer.output.count !== 1) throw new Error(JSON.stringify(answer))
    }
    return (performance.now() - started) / n
  }, n)

/** ms per call of `n` sequential plain fetches from the trusted page, timed inside the page. */
const viaFetch = (n: number, route: 'call' | 'view'): Promise<number> =>
  shell.page.evaluate(
    async ([n, route]) => {
      const headers = { authorization: `Bearer ${sessionStorage.getItem('neuron.shell.token')}`, 'content-type': 'application/json' }
      const started = performance.now()
      for (let i = 0; i < n; i++) {
        const res = route === 'call' ? await fetch('/v1/apps/installs/counter/call', { method: 'POST', headers, body: '{"method":"count","input":{}}' }) : await fetch('/v1/apps/installs/counter', { headers })
        const body = await res.json()
        if (!res.ok || (route === 'call' && body.output.count !== 1)) throw new Error(JSON.stringify(body))
      }
      return (performance.now() - started) / n
    },
    [n, route] as const,
  )

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

describe('canister.query_self in Chromium', () => {
  it('a query_self round trip vs a plain fetch of the same read, interleaved call by call', async () => {
    const rows = { shell: [] as number[], fetch: [] as number[], view: [] as number[] }
    // Call by call, in turn, so the machine's load (other engineers' suites) falls on all three alike.
    for (let i = 0; i < WARMUP + PAIRS; i++) {
      const s = await viaShell(1)
      const f = await viaFetch(1, 'call')
      const v = await viaFetch(1, 'view')
      if (i < WARMUP) continue
      rows.shell.push(s)
      rows.fetch.push(f)
      rows.view.push(v)
    }
    const row = (name: string, xs: number[]) => `  ${name.padEnd(86)} p50 ${percentile(xs, 50).toFixed(2)} ms  p95 ${percentile(xs, 95).toFixed(2)} ms`
    console.log(
      [
        `canister.query_self, Chromium ${shell.browser.version()}, real wrangler dev; ${PAIRS} interleaved triples after ${WARMUP} warm-up, each call timed where it is made`,
        row('query_self from a tile via the SDK (tile → kernel → fetch → worker → backend isolate → back)', rows.shell),
        row('plain fetch of the same route and read from the trusted page (POST …/call)', rows.fetch),
        row('plain route on the same object without an isolate (GET /v1/apps/installs/counter)', rows.view),
        `  ratio query_self / plain fetch of the same read: p50 ${(percentile(rows.shell, 50) / percentile(rows.fetch, 50)).toFixed(2)}×  p95 ${(percentile(rows.shell, 95) / percentile(rows.fetch, 95)).toFixed(2)}× (target ≤ 1.5×)`,
      ].join('\n'),
    )
    expect(rows.shell.length).toBe(PAIRS)
  })
})
