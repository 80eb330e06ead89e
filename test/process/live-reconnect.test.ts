/**
 * The live view survives reconnects (real `wrangler dev`). A long streamed turn
 * (reasoning, 2,000 text tokens, a streamed tool input, then a second step) is
 * followed by a client that never disconnects and by one whose connection is
 * cut at seeded random points (a TCP proxy drops it; the client reconnects by
 * itself). Both fold their frames with `LiveTranscript`. The reconnecting
 * client's rendering right after each catch-up must be one the connected
 * client rendered, and at the end both are equal and equal to the history.
 * Catch-up itself is counted on the raw streams: the missed events, then
 * `replay-end`, then one snapshot, and no delta before them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LiveTranscript, NeuronClient, type SessionFrame, type SessionHandle, type SocketFrame, type Stored } from '../../client/index.ts'
import { readSse } from '../../client/sse.ts'
import { type Proxy, startProxy } from '../support/proxy.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const DONE = 'session.next.drain.ended'
const EXPRESSION = Array.from({ length: 60 }, (_, i) => String(i + 1)).join('+')
const LONG_TURN = ['/think first add the numbers, then say many words', '/tokens 2000', `/tool calculator {"expression":"${EXPRESSION}"}`, '/slow 2'].join('\n')

/** A small seeded generator (mulberry32): the same seed drops at the same frames. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('the live view after reconnects (real wrangler dev)', () => {
  let dev: Wrangler
  let neuron: NeuronClient
  let token: string
  beforeAll(async () => {
    dev = await startWrangler()
    token = await devToken('live')
    neuron = new NeuronClient({ url: dev.url, token })
  })
  afterAll(async () => {
    await dev?.stop()
  })

  /** The connected client: every rendering it showed, and its last. */
  async function followConnected(frames: AsyncIterable<SessionFrame>): Promise<{ seen: Set<string>; final: string }> {
    const live = new LiveTranscript()
    const seen = new Set<string>([live.render()])
    for await (const frame of frames) {
      live.apply(frame)
      seen.add(live.render())
      if (frame.kind === 'event' && frame.envelope.type === DONE) break
    }
    return { seen, final: live.render() }
  }

  /**
   * The reconnecting client: after `replay-end` (and the snapshot, when one follows) it records
   * what it renders. Every `nextDrop()` frames, the proxy cuts its connection.
   */
  async function followDropped(frames: AsyncIterable<SessionFrame>, proxy: Proxy, nextDrop: () => number) {
    const live = new LiveTranscript()
    const caughtUp: string[] = []
    let afterReplayEnd = false
    let drops = 0
    let untilDrop = nextDrop()
    for await (const frame of frames) {
      if (afterReplayEnd && frame.kind !== 'snapshot') caughtUp.push(live.render())
      live.apply(frame)
      if (afterReplayEnd && frame.kind === 'snapshot') caughtUp.push(live.render())
      afterReplayEnd = frame.kind === 'replay-end'
      if (frame.kind === 'event' && frame.envelope.type === DONE) break
      if (--untilDrop === 0) {
        drops += proxy.drop() > 0 ? 1 : 0
        untilDrop = nextDrop()
      }
    }
    return { caughtUp, drops, final: live.render() }
  }

  /** What the durable history alone renders (after the turn, nothing is air any more). */
  async function fromHistory(session: SessionHandle): Promise<string> {
    const live = new LiveTranscript()
    for await (const envelope of session.allHistory()) live.apply({ kind: 'event', envelope })
    return live.render()
  }

  for (const mode of ['sse', 'websocket'] as const) {
    it(`${mode}: a client cut at random points renders what a connected client renders, at every reconnect and at the end`, async () => {
      const proxy = await startProxy(dev.port)
      const cut = new NeuronClient({ url: proxy.url, token })
      const session = await neuron.createSession()
      const random = seeded(mode === 'sse' ? 14 : 41)
      const stop = new AbortController()
      const sockets: { close(): void }[] = []
      const stream = (client: NeuronClient): AsyncIterable<SessionFrame> => {
        if (mode === 'sse') return client.session(session.id).events({ signal: stop.signal })
        const socket = client.socket(session.id)
        sockets.push(socket)
        return sessionFramesOf(socket.frames())
      }
      try {
        const connected = followConnected(stream(neuron))
        const dropped = followDropped(stream(cut), proxy, () => 3 + Math.floor(random() * 22))
        await session.prompt(LONG_TURN)
        const [a, b] = await Promise.all([connected, dropped])
        expect(b.drops).toBeGreaterThanOrEqual(5)
        // Mid-turn catch-ups (those that rendered live text) are the ones a snapshot had to fill.
        expect(b.caughtUp.filter((text) => text.includes('neuron')).length).toBeGreaterThanOrEqual(3)
        for (const text of b.caughtUp) expect(a.seen.has(text), `a catch-up rendered what the connected client never did:\n${text.slice(-300)}`).toBe(true)
        expect(b.final === a.final, 'the reconnecting client ended with a different rendering').toBe(true)
        expect(a.final === (await fromHistory(session)), 'the live rendering differs from the history').toBe(true)
        expect(a.final).toContain('calculator returned 1+2+3')
      } finally {
        stop.abort()
        for (const socket of sockets) socket.close()
        await proxy.close()
      }
    })
  }

  it('catch-up costs the missed events, replay-end and one snapshot, on SSE and WebSocket', async () => {
    const session = await neuron.createSession()
    await session.prompt('/think weigh it\n/tokens 400\n/slow 5')
    // Wait until the step streams text, then join from the step's start as a reconnecting client would.
    let started = 0
    let texts = 0
    const watch = new AbortController()
    for await (const frame of session.events({ signal: watch.signal })) {
      if (frame.kind === 'event' && frame.envelope.type === 'session.next.step.started') started = frame.envelope.seq
      if (frame.kind === 'delta' && frame.delta.type === 'text-delta' && ++texts === 5) break
    }
    watch.abort()
    const missed = async () => (await session.history({ after: started - 1, limit: 500 })).items as Stored[]

    // SSE, raw: Last-Event-ID just before the step began.
    const res = await fetch(`${dev.url}/v1/sessions/${session.id}/events`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': String(started - 1) } })
    const sse: { event: string; data: string }[] = []
    for await (const message of readSse(res.body!)) {
      sse.push(message)
      if (message.event === 'snapshot') break
      if (sse.length > 50) break
    }
    const sseEnd = JSON.parse(sse.find((m) => m.event === 'replay-end')!.data).seq as number
    const sseMissed = (await missed()).filter((e) => e.seq <= sseEnd)
    expect(sse.map((m) => m.event)).toEqual([...sseMissed.map((e) => e.type), 'replay-end', 'snapshot'])
    const snap = JSON.parse(sse.at(-1)!.data)
    expect(snap).toMatchObject({ step: expect.any(String), reasoning: 'weigh it', complete: true })
    expect(snap.text.split(' ').length).toBeGreaterThan(5)

    // WebSocket, raw: subscribe after the same point.
    const { ticket } = (await (await fetch(`${dev.url}/v1/sessions/${session.id}/tickets`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' })).json()) as { ticket: string }
    const ws = new WebSocket(`${dev.url.replace(/^http/, 'ws')}/v1/sessions/${session.id}/ws?ticket=${ticket}`)
    const messages: { type: string; seq?: number; event?: Stored }[] = []
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'subscribe', after: started - 1 })))
      ws.addEventListener('error', () => reject(new Error('socket failed')))
      ws.addEventListener('message', (event) => {
        const message = JSON.parse(String(event.data))
        messages.push(message)
        if (message.type === 'snapshot' || messages.length > 50) resolve()
      })
    })
    ws.close()
    const wsEnd = messages.find((m) => m.type === 'replay-end')!.seq!
    const wsMissed = (await missed()).filter((e) => e.seq <= wsEnd)
    expect(messages.map((m) => (m.type === 'event' ? m.event!.type : m.type))).toEqual([...wsMissed.map((e) => e.type), 'replay-end', 'snapshot'])

    for await (const frame of session.events({ after: wsEnd })) if (frame.kind === 'event' && frame.envelope.type === DONE) break
  })
})

/** The session's frames among what a socket yields (it also says when it opens, and carries host messages). */
async function* sessionFramesOf(frames: AsyncIterable<SocketFrame>): AsyncGenerator<SessionFrame> {
  for await (const frame of frames) if (frame.kind !== 'open' && frame.kind !== 'host' && frame.kind !== 'host-error') yield frame
}
