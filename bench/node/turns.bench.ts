/**
 * Turn cost over a long session: one session on a real `wrangler dev`, one
 * prompt at a time over one WebSocket, each waited for until its drain ends, timed per block of
 * turns. Nothing a turn does may grow with the history, so the last block must cost what the
 * first did. Bounded by count and by time (NEURON_TURNS, default 2,000; 240 s); prints workerd's
 * resident size beside each block. Nothing here asserts on time.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../../test/support/wrangler.ts'

const TURNS = Number(process.env.NEURON_TURNS ?? 2_000)
const BLOCK = 250
const BUDGET_MS = 240_000

let dev: Wrangler
let auth: Record<string, string>
beforeAll(async () => {
  dev = await startWrangler()
  auth = { authorization: `Bearer ${await devToken('bench')}`, 'content-type': 'application/json' }
})
afterAll(async () => dev?.stop())

const post = (path: string, body: unknown) => fetch(`${dev.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })

describe('turn cost over a long session', () => {
  it(`up to ${TURNS} one-step turns, ms per turn by block of ${BLOCK}`, async () => {
    await post('/v1/sessions', { id: 'bench-turns' })
    const { ticket } = (await (await post('/v1/sessions/bench-turns/tickets', {})).json()) as { ticket: string }
    const ws = new WebSocket(`${dev.url.replace('http', 'ws')}/v1/sessions/bench-turns/ws?ticket=${encodeURIComponent(ticket)}`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    let drains = 0
    let wake = () => {}
    ws.addEventListener('message', (event) => {
      const m = JSON.parse(String(event.data)) as { event?: { type: string } }
      if (m.event?.type === 'session.next.drain.ended') drains++, wake()
    })
    ws.send(JSON.stringify({ type: 'subscribe', after: 0 }))
    const blocks: number[] = []
    const started = Date.now()
    let blockStarted = started
    let turn = 0
    console.log(`\nturn cost over one long session (local/echo-1, one WebSocket, real wrangler dev)`)
    while (turn < TURNS && Date.now() - started < BUDGET_MS) {
      turn++
      const target = turn
      const done = new Promise<void>((resolve) => (wake = () => drains >= target && resolve()))
      ws.send(JSON.stringify({ type: 'prompt', id: `m${turn}`, text: `turn ${turn}: say something short` }))
      await done
      if (turn % BLOCK === 0) {
        blocks.push((Date.now() - blockStarted) / BLOCK)
        console.log(`  turns ${String(turn - BLOCK + 1).padStart(5)}–${String(turn).padEnd(5)} ${blocks.at(-1)!.toFixed(1).padStart(6)} ms/turn   workerd RSS ${dev.workerdRssMb().join(' + ')} MiB`)
        blockStarted = Date.now()
      }
    }
    ws.close()
    if (blocks.length >= 2) console.log(`  last block / first block: ${(blocks.at(-1)! / blocks[0]!).toFixed(2)}× (flat: ≈ 1×)`)
  })
})
