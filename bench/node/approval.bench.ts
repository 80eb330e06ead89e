/**
 * An approval's round trip over the session's WebSocket against a real `wrangler dev`: a rule makes
 * `read` ask, the local model calls it, and the time measured at the client runs from the call's
 * `permission.requested` event arriving to its `tool.succeeded` event arriving, with the client's
 * `permission.answer` sent the moment the request arrives (request → answer → the call settles).
 *
 * The limit, measured in the same run on the same socket, interleaved: a raw WebSocket echo (`ping`
 * → `pong`) and one durable event delivery (a prompt → its `admitted` event: one message in, one
 * durable write, one event out), the echo taken 50 ms after a turn ends. The durable writes between the request and the settlement are
 * counted from the events' sequences, and the bound asserted is 1.5× the echo plus one durable
 * delivery per write: each write is also an event sent out on the socket, as the delivery's is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openHost, type Host, type HostMessage } from '../../test/support/host.ts'
import { devToken, startWrangler, type Wrangler } from '../../test/support/wrangler.ts'

let dev: Wrangler
let auth: Record<string, string>
beforeAll(async () => {
  dev = await startWrangler()
  auth = { authorization: `Bearer ${await devToken('bench')}` }
})
afterAll(async () => dev?.stop())

const N = 60

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!

type Event = { type: string; seq: number; payload: Record<string, unknown> }
const eventOf = (m: HostMessage) => (m.type === 'event' ? (m.event as Event) : null)

/** The next message `match` accepts, counting only messages that arrive from now on. */
function arrival(host: Host, match: (m: HostMessage) => boolean): Promise<{ message: HostMessage; at: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no matching message within 30 s')), 30_000)
    const onMessage = (event: MessageEvent) => {
      const message = JSON.parse(String(event.data)) as HostMessage
      if (!match(message)) return
      clearTimeout(timer)
      host.ws.removeEventListener('message', onMessage)
      resolve({ message, at: performance.now() })
    }
    host.ws.addEventListener('message', onMessage)
  })
}

describe('approvals', () => {
  it('permission.requested → permission.answer → tool.succeeded, vs a raw echo plus the durable writes between them', async () => {
    const json = { 'content-type': 'application/json', ...auth }
    expect((await fetch(`${dev.url}/v1/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ id: 'bench-approval' }) })).status).toBe(201)
    const rules = [{ tool: 'read', action: 'ask' }]
    expect((await fetch(`${dev.url}/v1/sessions/bench-approval/config`, { method: 'PUT', headers: json, body: JSON.stringify({ permission: { rules } }) })).status).toBe(200)
    expect((await fetch(`${dev.url}/v1/sessions/bench-approval/workspace/file?path=notes.txt`, { method: 'PUT', headers: auth, body: 'buy milk\n' })).status).toBe(200)
    const host = await openHost(dev.url, 'bench-approval', auth)
    host.send({ type: 'subscribe', after: 0 })
    await host.next((m) => m.type === 'replay-end')
    const idle = () => arrival(host, (m) => eventOf(m)?.type === 'session.next.drain.ended')

    const echo: number[] = []
    const delivery: number[] = []
    const roundTrip: number[] = []
    const writes: number[] = []
    for (let i = 0; i < N; i++) {
      // The echo is taken once the object is idle after the previous turn (its last writes done).
      await new Promise((r) => setTimeout(r, 50))
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
      const requested = arrival(host, (m) => eventOf(m)?.type === 'session.next.permission.requested')
      host.send({ type: 'prompt', id: `t${i}`, text: '/tool read {"path":"notes.txt"}' })
      const { message, at: asked } = await requested
      const ask = eventOf(message)!
      const settled = arrival(host, (m) => eventOf(m)?.type === 'session.next.tool.succeeded' && eventOf(m)!.payload.toolCallId === ask.payload.toolCallId)
      host.send({ type: 'permission.answer', toolCallId: ask.payload.toolCallId, reply: 'once' })
      const done = await settled
      roundTrip.push(done.at - asked)
      writes.push(eventOf(done.message)!.seq - ask.seq)
      expect(JSON.parse(eventOf(done.message)!.payload.content as string)).toMatchObject({ path: 'notes.txt', text: 'buy milk' })
      await ended
    }
    await host.close()

    const [e, d, r] = [percentile(echo, 50), percentile(delivery, 50), percentile(roundTrip, 50)]
    const durable = percentile(writes, 50)
    const bound = 1.5 * e + durable * d
    const row = (name: string, xs: number[]) => `  ${name.padEnd(50)} p50 ${percentile(xs, 50).toFixed(2)} ms   p99 ${percentile(xs, 99).toFixed(2)} ms`
    console.log(`\napproval round trip over the WebSocket, ${N} calls (real wrangler dev, loopback)`)
    console.log(row('raw WebSocket echo (ping → pong)', echo))
    console.log(row('one durable event delivery (prompt → admitted)', delivery))
    console.log(row('permission.requested → answer → tool.succeeded', roundTrip))
    console.log(`  durable writes from the request to the settlement (events appended): ${durable} (min ${Math.min(...writes)}, max ${Math.max(...writes)})`)
    console.log(`  ratio to the echo: ${(r / e).toFixed(2)}×; bound 1.5 × echo + ${durable} × delivery = ${bound.toFixed(2)} ms; round trip ${r.toFixed(2)} ms (${(r / bound).toFixed(2)} of the bound)`)
    expect(r).toBeLessThanOrEqual(bound)
  })
})
