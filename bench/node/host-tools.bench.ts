/**
 * Host tool round trip against a real `wrangler dev` (the server half).
 * A Node client plays the browser host: it offers `notes_search`, the local model
 * calls it, and the time measured at the host runs from `host.call` arriving to
 * the call's `tool.succeeded` event arriving on the same socket (the answer
 * travels in, is settled and stored, and the event travels out).
 *
 * The physical limit, measured in the same run on the same socket: a raw
 * WebSocket echo (`ping` → `pong`) plus one durable event delivery (a prompt
 * sent on the socket → its `admitted` event back). The second figure alone is
 * also shown: it is already one message in, one durable write and one event out.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { NOTES_SEARCH, openHost, type Host, type HostMessage } from '../../test/support/host.ts'
import { devToken, startWrangler, type Wrangler } from '../../test/support/wrangler.ts'

let dev: Wrangler
let auth: Record<string, string>
beforeAll(async () => {
  dev = await startWrangler()
  auth = { authorization: `Bearer ${await devToken('bench')}` }
})
afterAll(async () => dev?.stop())

const N = 100

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** The next message `match` accepts, counting only messages that arrive from now on. */
function arrival(host: Host, match: (m: HostMessage) => boolean): Promise<{ message: HostMessage; at: number }> {
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent) => {
      const message = JSON.parse(String(event.data)) as HostMessage
      if (!match(message)) return
      host.ws.removeEventListener('message', onMessage)
      resolve({ message, at: performance.now() })
    }
    host.ws.addEventListener('message', onMessage)
  })
}

const eventOf = (m: HostMessage) => (m.type === 'event' ? (m.event as { type: string; payload: Record<string, unknown> }) : null)

describe('host tools', () => {
  it('host.call → host.result → tool.succeeded at the host, vs a raw echo plus one durable event delivery', async () => {
    const created = await fetch(`${dev.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ id: 'bench-host' }) })
    if (created.status !== 201) throw new Error(`create: ${created.status}`)
    const host = await openHost(dev.url, 'bench-host', auth)
    host.send({ type: 'subscribe', after: 0 })
    await host.next((m) => m.type === 'replay-end')
    host.send({ type: 'host.offer', host: 'notes', tools: [NOTES_SEARCH] })
    await host.next((m) => m.type === 'host.offered')
    const idle = () => arrival(host, (m) => eventOf(m)?.type === 'session.next.drain.ended')

    const echo: number[] = []
    const delivery: number[] = []
    const roundTrip: number[] = []
    for (let i = 0; i < N; i++) {
      let start = performance.now()
      const pong = arrival(host, (m) => m.type === 'pong')
      host.send({ type: 'ping', data: `p${i}` })
      echo.push((await pong).at - start)

      let ended = idle()
      const admitted = arrival(host, (m) => eventOf(m)?.type === 'session.next.admitted' && eventOf(m)!.payload.messageId === `d${i}`)
      start = performance.now()
      host.send({ type: 'prompt', id: `d${i}`, text: `plain ${i}` })
      delivery.push((await admitted).at - start)
      await ended

      ended = idle()
      const call = arrival(host, (m) => m.type === 'host.call')
      host.send({ type: 'prompt', id: `t${i}`, text: `/tool notes_search {"q":"milk ${i}"}` })
      const { message, at: called } = await call
      const settled = arrival(host, (m) => eventOf(m)?.type === 'session.next.tool.succeeded' && eventOf(m)!.payload.toolCallId === message.call)
      host.send({ type: 'host.result', call: message.call, ok: true, content: `note ${i}: buy milk` })
      roundTrip.push((await settled).at - called)
      await ended
    }
    await host.close()

    const baseline = percentile(echo, 50) + percentile(delivery, 50)
    const row = (name: string, xs: number[]) => `  ${name.padEnd(46)} p50 ${percentile(xs, 50).toFixed(2)} ms   p99 ${percentile(xs, 99).toFixed(2)} ms`
    console.log(`\nhost tool round trip, ${N} calls (real wrangler dev, loopback, Node host)`)
    console.log(row('raw WebSocket echo (ping → pong)', echo))
    console.log(row('one durable event delivery (prompt → admitted)', delivery))
    console.log(row('host.call → host.result → tool.succeeded', roundTrip))
    console.log(`  ratio to echo + delivery (p50): ${(percentile(roundTrip, 50) / baseline).toFixed(2)}×`)
    console.log(`  ratio to the delivery alone (p50): ${(percentile(roundTrip, 50) / percentile(delivery, 50)).toFixed(2)}×`)
  })
})
