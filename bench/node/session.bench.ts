/**
 * Session delivery benchmarks against a real `wrangler dev`.
 * Two floors, measured in the same run, in interleaved blocks:
 * - a raw `ws.send`: a WebSocket ping whose payload the session object sends straight back;
 * - the physical limit of a durable event: in one bench-only object (bench/delivery/), an INSERT
 *   of the event's frame into a table with the session log's DDL, then `ws.send` of that frame,
 *   released by the output gate once the row is durable.
 * The subject: a prompt on a session's socket until its `admitted` event arrives on that socket,
 * and on an SSE reader of the same session. Two sessions: one on the in-process local model, one
 * on a vendor over a real loopback socket (a Node server replaying the local model's exact
 * chat-completions bytes), since an SSE reader's bytes leave workerd only when its loop polls the
 * OS, which a turn from an in-process model never makes it do (docs/benchmarks.md).
 *
 * Both floors run back to back on an idle object, so each prompt is measured on an idle session
 * too: after the previous turn's `drain.ended` (and its SSE event), one ping round trip, which the
 * object answers only once its thread is back at the socket, i.e. after that turn's follow-up
 * writes (meter, conversation chain), which in `wrangler dev` share the thread with every object.
 * `wrangler dev`'s local trace collector (X_LOCAL_OBSERVABILITY) is off: it writes every
 * invocation's spans to a SQLite store on that same thread, a cost of the dev tool that neither a
 * deployment nor the limit has. `NEURON_BENCH_DEV_TRACES=1` leaves it on, for comparison.
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { deliveryConfig } from '../delivery/config.ts'
import { startScriptServer } from '../../test/support/script-server.ts'
import { devToken, startWrangler, type Wrangler } from '../../test/support/wrangler.ts'

const VENDOR_SCRIPT = fileURLToPath(new URL('../support/replay-vendor.ts', import.meta.url))

let dev: Wrangler
let vendor: ChildProcess | undefined
let auth: Record<string, string>
beforeAll(async () => {
  // Read by wrangler dev at start (startWrangler passes this process's environment on).
  process.env.X_LOCAL_OBSERVABILITY = process.env.NEURON_BENCH_DEV_TRACES === '1' ? 'true' : 'false'
  const started = await startScriptServer(VENDOR_SCRIPT)
  vendor = started.child
  dev = await startWrangler({ config: deliveryConfig(), vars: { OLLAMA_BASE_URL: started.url } })
  auth = { authorization: `Bearer ${await devToken('bench')}` }
})
afterAll(async () => {
  await dev?.stop()
  vendor?.kill()
})

const post = (path: string, body: unknown) =>
  fetch(`${dev.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) })

/** A WebSocket URL with a fresh one-use ticket, as a browser would open it. */
async function socketUrl(session: string): Promise<string> {
  const { ticket } = (await (await post(`/v1/sessions/${session}/tickets`, {})).json()) as { ticket: string }
  return `${dev.url.replace('http', 'ws')}/v1/sessions/${session}/ws?ticket=${encodeURIComponent(ticket)}`
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.onopen = () => resolve(ws)
    ws.onerror = (e) => reject(new Error(`WebSocket error ${String(e)}`))
  })
}

/** Sends one message and resolves with the first reply `match` accepts, timed. */
function roundTrip(ws: WebSocket, message: string, match: (data: Record<string, unknown>) => boolean): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now()
    const onMessage = (event: MessageEvent) => {
      if (match(JSON.parse(String(event.data)))) {
        ws.removeEventListener('message', onMessage)
        resolve(performance.now() - start)
      }
    }
    ws.addEventListener('message', onMessage)
    ws.send(message)
  })
}

interface Subscriber {
  ws: WebSocket
  /** Resolves once the session's SSE reader has read `needle`. */
  sseSaw: (needle: string) => Promise<void>
  close: () => Promise<void>
}

/** A session with a subscribed WebSocket and an SSE reader from its start. */
async function subscriber(id: string, model: string): Promise<Subscriber> {
  await post('/v1/sessions', { id, model })
  const ws = await open(await socketUrl(id))
  await roundTrip(ws, JSON.stringify({ type: 'subscribe', after: 0 }), (m) => m.type === 'replay-end')
  const sse = await fetch(`${dev.url}/v1/sessions/${id}/events?after=0`, { headers: auth })
  const reader = sse.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const sseSaw = async (needle: string) => {
    for (;;) {
      const at = buffer.indexOf(needle)
      if (at >= 0) return void (buffer = buffer.slice(at + needle.length))
      const { value } = await reader.read()
      buffer += decoder.decode(value, { stream: true })
    }
  }
  return { ws, sseSaw, close: async () => (await reader.cancel(), ws.close()) }
}

const N = Number(process.env.NEURON_BENCH_N ?? 300)
/** Round trips of each kind per block; blocks alternate so load from other processes falls on all alike. */
const BLOCK = 20

describe('session delivery', () => {
  it('append → subscriber latency (WebSocket, SSE) vs the durable limit and a raw ws.send', async () => {
    // The vendor's base URL makes it the deployment's default model, so each session names its model.
    const local = await subscriber('bench-latency', 'local/echo-1')
    const vendored = await subscriber('bench-vendor', 'ollama/qwen3:8b')
    const limitWs = await open(`${dev.url.replace('http', 'ws')}/__bench/limit/ws`)
    const raw: number[] = []
    const limit: number[] = []
    const viaWs: number[] = []
    const viaSse: number[] = []
    const vendorWs: number[] = []
    const vendorSse: number[] = []
    const text = 'x'.repeat(400)
    // The limit stores and sends the bytes the real path delivered last (the admitted event's frame).
    let lastFrame = ''
    const real = async ({ ws, sseSaw }: Subscriber, i: number | string, sseTimes: number[]) => {
      // One prompt, two subscribers: the same admitted event reaches the socket and the SSE tail.
      const start = performance.now()
      const sseDone = sseSaw(`"messageId":"w${i}"`).then(() => sseTimes.push(performance.now() - start))
      const idle = new Promise<void>((resolve) => {
        const onMessage = (event: MessageEvent) => {
          const m = JSON.parse(String(event.data)) as { type: string; event?: { type: string; payload?: { messageId?: string } } }
          if (m.type === 'event' && m.event?.type === 'session.next.admitted' && m.event.payload?.messageId === `w${i}`) lastFrame = String(event.data)
          if (m.type === 'event' && m.event?.type === 'session.next.drain.ended') {
            ws.removeEventListener('message', onMessage)
            resolve()
          }
        }
        ws.addEventListener('message', onMessage)
      })
      const took = await roundTrip(ws, JSON.stringify({ type: 'prompt', id: `w${i}`, text: text + i }), (m) => m.type === 'event' && (m.event as { type: string }).type === 'session.next.admitted')
      await sseDone
      // Measure the next round on an idle session, not behind this prompt's turn nor its follow-up
      // writes: the pong comes once the object's thread has finished them (see the header).
      await idle
      await roundTrip(ws, JSON.stringify({ type: 'ping', data: 'settle' }), (m) => m.type === 'pong')
      return took
    }
    await real(local, -1, [])
    await real(vendored, 'v-1', [])
    for (let i = 0; i < N; i += BLOCK) {
      for (let k = i; k < i + BLOCK; k++) raw.push(await roundTrip(local.ws, JSON.stringify({ type: 'ping', data: text + k }), (m) => m.type === 'pong'))
      for (let k = i; k < i + BLOCK; k++) {
        const frame = lastFrame.replace('"messageId":"w', `"messageId":"limit${k}-w`)
        limit.push(await roundTrip(limitWs, frame, (m) => m.type === 'event'))
      }
      for (let k = i; k < i + BLOCK; k++) viaWs.push(await real(local, k, viaSse))
      for (let k = i; k < i + BLOCK; k++) vendorWs.push(await real(vendored, `v${k}`, vendorSse))
    }
    await local.close()
    await vendored.close()
    limitWs.close()
    const row = (name: string, xs: number[]) =>
      `  ${name.padEnd(44)} p50 ${percentile(xs, 50).toFixed(2)} ms   p99 ${percentile(xs, 99).toFixed(2)} ms   ` +
      `(${(percentile(xs, 50) / percentile(limit, 50)).toFixed(2)}× limit p50, ${(percentile(xs, 99) / percentile(limit, 99)).toFixed(2)}× limit p99; ` +
      `${(percentile(xs, 50) / percentile(raw, 50)).toFixed(2)}× raw p50)`
    const traces = process.env.X_LOCAL_OBSERVABILITY === 'false' ? 'dev trace collector off' : 'dev trace collector on'
    console.log(`\nsession delivery latency, ${N} round trips of each, blocks of ${BLOCK} interleaved (real wrangler dev, ${traces}, loopback, frame ${lastFrame.length} B)`)
    console.log(row('raw ws.send (ping → pong)', raw))
    console.log(row('limit: INSERT + output gate + ws.send', limit))
    console.log(row('WS prompt → admitted on the socket', viaWs))
    console.log(row('WS prompt → admitted on an SSE tail', viaSse))
    console.log(row('the same, turns from a loopback vendor: socket', vendorWs))
    console.log(row('the same, turns from a loopback vendor: SSE', vendorSse))
  })

  it('fan-out: 200 WebSocket subscribers on one session all receive every event', async () => {
    await post('/v1/sessions', { id: 'bench-fanout', model: 'local/echo-1' })
    const urls = await Promise.all(Array.from({ length: 200 }, () => socketUrl('bench-fanout')))
    const sockets = await Promise.all(urls.map((url) => open(url)))
    const received = sockets.map(() => [] as number[])
    let lastAt = 0
    await Promise.all(
      sockets.map(
        (ws, k) =>
          new Promise<void>((resolve) => {
            ws.addEventListener('message', (event) => {
              const m = JSON.parse(String(event.data)) as { type: string; seq?: number }
              if (m.type === 'replay-end') resolve()
              if (m.type === 'event') {
                received[k]!.push(m.seq!)
                lastAt = performance.now()
              }
            })
            ws.send(JSON.stringify({ type: 'subscribe', after: 0 }))
          }),
      ),
    )
    const start = performance.now()
    await post('/v1/sessions/bench-fanout/prompt', { text: '/tool calculator {"expression":"2+2"}\n/tokens 200' })
    let total = 0
    for (;;) {
      const view = (await (await fetch(`${dev.url}/v1/sessions/bench-fanout`, { headers: auth })).json()) as { status: string; lastSequence: number }
      total = view.lastSequence
      if (view.status === 'idle' && received.every((r) => r.length === total)) break
      await new Promise((r) => setTimeout(r, 20))
    }
    const complete = received.filter((r) => r.length === total && r.every((seq, i) => seq === i + 1)).length
    console.log(`\nfan-out: ${complete}/200 subscribers received all ${total} events, in order, no gaps`)
    console.log(`  ${(lastAt - start).toFixed(0)} ms from the prompt to the last delivery of the drain's last event`)
    for (const ws of sockets) ws.close()
  })
})
