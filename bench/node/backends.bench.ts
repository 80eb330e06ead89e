/**
 * App backend calls against a real `wrangler dev`: a query round trip through
 * the API (gate → installation object → the backend's isolate → its state read
 * → back) against a plain route doing the same read on the same object without
 * the isolate (`GET /v1/apps/installs/{app}`: gate → installation object → one
 * latest-row read → back). Same process, same run, interleaved; target ≤ 1.5×.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { COUNTER as COUNTER_PACKAGE } from '../../test/fixtures/apps/packages.ts'
import { devToken, startWrangler, type Wrangler } from '../../test/support/wrangler.ts'

/** The README sample's backend and interface (test/fixtures/apps/packages.ts). */
const COUNTER = JSON.stringify(COUNTER_PACKAGE)
const N = 400
const WARMUP = 50

let dev: Wrangler
let auth: Record<string, string>
beforeAll(async () => {
  dev = await startWrangler()
  auth = { authorization: `Bearer ${await devToken('bench-apps')}`, 'content-type': 'application/json' }
})
afterAll(async () => dev?.stop())

const post = (path: string, body: string) => fetch(`${dev.url}${path}`, { method: 'POST', headers: auth, body })

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function timed(run: () => Promise<Response>): Promise<number> {
  const start = performance.now()
  const res = await run()
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`status ${res.status}`)
  return performance.now() - start
}

describe('app backends', () => {
  it('a backend query round trip vs a plain route reading the same object', async () => {
    const { hash } = (await (await post('/v1/apps/packages', COUNTER)).json()) as { hash: string }
    await post('/v1/apps/installs', JSON.stringify({ package: hash }))
    await post('/v1/apps/installs/counter/call', JSON.stringify({ method: 'increment', input: { by: 1 } }))
    const query = () => post('/v1/apps/installs/counter/call', '{"method":"count","input":{}}')
    const plain = () => fetch(`${dev.url}/v1/apps/installs/counter`, { headers: auth })
    const viaBackend: number[] = []
    const viaPlain: number[] = []
    for (let i = 0; i < WARMUP + N; i++) {
      const a = await timed(query)
      const b = await timed(plain)
      if (i >= WARMUP) {
        viaBackend.push(a)
        viaPlain.push(b)
      }
    }
    const row = (name: string, values: number[]) => `${name.padEnd(32)} p50 ${percentile(values, 50).toFixed(2)} ms  p95 ${percentile(values, 95).toFixed(2)} ms`
    console.log(
      [
        `app backend query round trip, ${N} interleaved pairs after ${WARMUP} warm-up (real wrangler dev)`,
        row('backend query (POST …/call)', viaBackend),
        row('plain route (GET …/installs/app)', viaPlain),
        `ratio p50 ${(percentile(viaBackend, 50) / percentile(viaPlain, 50)).toFixed(2)}×  p95 ${(percentile(viaBackend, 95) / percentile(viaPlain, 95)).toFixed(2)}×  (target ≤ 1.5×)`,
      ].join('\n'),
    )
  })
})
