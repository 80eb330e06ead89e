/**
 * The typed client (client/) against a real `wrangler dev`, through a TCP proxy
 * the test can cut: exactly-once prompts across a lost response, history paging,
 * typed errors, and SSE and WebSocket following that survive a drop mid-turn
 * with no durable event skipped or yielded twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronApiError, NeuronClient, type SessionFrame, ShownTurn, type SocketFrame, type Stored } from '../../client/index.ts'
import { type Proxy, startProxy } from '../support/proxy.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const DONE = 'session.next.drain.ended'

describe('typed client against a real wrangler dev', () => {
  let dev: Wrangler
  let proxy: Proxy
  let neuron: NeuronClient
  beforeAll(async () => {
    dev = await startWrangler()
    proxy = await startProxy(dev.port)
    neuron = new NeuronClient({ url: proxy.url, token: await devToken('client') })
  })
  afterAll(async () => {
    await proxy?.close()
    await dev?.stop()
  })

  /** Every durable event of a session, read page by page with a small page size. */
  async function everything(id: string): Promise<Stored[]> {
    const all: Stored[] = []
    for await (const event of neuron.session(id).allHistory({ pageSize: 7 })) all.push(event)
    return all
  }

  it('creates, prompts, follows to the end of the turn, and pages history', async () => {
    const session = await neuron.createSession({ title: 'client test' })
    expect(session.created).toMatchObject({ id: session.id, status: 'idle', model: 'local/echo-1' })
    const { receipt, duplicate } = await session.prompt('hello from the client')
    expect([receipt.status, duplicate]).toEqual(['admitted', false])
    const seen: SessionFrame[] = []
    for await (const frame of session.events()) {
      seen.push(frame)
      if (frame.kind === 'event' && frame.envelope.type === DONE) break
    }
    const events = seen.flatMap((f) => (f.kind === 'event' ? [f.envelope] : []))
    const text = events.find((e) => e.type === 'session.next.text')
    expect((text?.payload as { text: string }).text).toBe('Echo: hello from the client')
    expect((await everything(session.id)).map((e) => e.seq)).toEqual(events.map((e) => e.seq))
  })

  /** Polls the view until the session is idle. */
  async function idle(id: string): Promise<void> {
    for (let i = 0; i < 200 && (await neuron.session(id).view()).status !== 'idle'; i++) await new Promise((r) => setTimeout(r, 50))
  }
  /** The durable text of every step that came after the admission at `after`. */
  async function storedText(id: string, after: number): Promise<string> {
    return (await everything(id)).filter((e) => e.seq > after && e.type === 'session.next.text').map((e) => (e.payload as { text: string }).text).join('')
  }

  it('prompt() answers the turn to follow: its text whole, even when the turn ended before anyone subscribed', async () => {
    const session = await neuron.createSession({ model: 'local/echo-1' })
    const turn = await session.prompt('what is 6*7?')
    await idle(session.id) // text deltas are live-only: a subscriber from now would have missed every one
    let text = ''
    for await (const chunk of turn.text()) text += chunk
    expect(text).toBe('Echo: what is 6*7?')
    const types: string[] = []
    for await (const frame of turn.stream()) if (frame.kind === 'event') types.push(frame.envelope.type)
    expect(types[0]).toBe('session.next.admitted')
    expect(types.at(-1)).toBe('session.next.step.ended')
  })

  it('turn.text() while the turn streams: deltas, then nothing twice when the durable text arrives', async () => {
    const session = await neuron.createSession()
    const turn = await session.prompt('/tokens 120\n/slow 15')
    const chunks: string[] = []
    for await (const chunk of turn.text()) chunks.push(chunk)
    expect(chunks.length).toBeGreaterThan(5) // streamed, not one piece at the end
    expect(chunks.join('')).toBe(await storedText(session.id, turn.receipt.sequence))
  })

  it('a queued prompt\'s turn is only its own: text of the turn before it is not part of it', async () => {
    const session = await neuron.createSession()
    const first = await session.prompt('/tool wait {"ms":600}')
    const second = await session.prompt('the second prompt')
    let text = ''
    for await (const chunk of second.text()) text += chunk
    expect(text).toBe('Echo: the second prompt')
    let firstText = ''
    for await (const chunk of first.text()) firstText += chunk
    expect(firstText).toContain('Tool results: wait returned')
    expect(firstText).not.toContain('second prompt')
  })

  it('a prompt whose response is lost is retried with the same id and admitted once', async () => {
    let lost = 0
    const flaky = new NeuronClient({
      url: proxy.url,
      token: await devToken('client'),
      fetch: async (input, init) => {
        const res = await fetch(input, init)
        // The server admitted it; the answer never arrives.
        if (String(input).endsWith('/prompt') && lost++ === 0) throw new TypeError('fetch failed: socket hang up')
        return res
      },
    })
    const session = await flaky.createSession()
    const { receipt, duplicate } = await session.prompt({ text: 'only once' })
    expect(lost).toBe(2)
    expect(duplicate).toBe(true)
    const admitted = (await everything(session.id)).filter((e) => e.type === 'session.next.admitted')
    expect(admitted.map((e) => (e.payload as { messageId: string }).messageId)).toEqual([receipt.id])
  })

  it('answers failures with one typed error carrying the server code', async () => {
    const missing = await neuron.session('no-such-session').view().catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(NeuronApiError)
    expect(missing).toMatchObject({ code: 'SESSION_NOT_FOUND', status: 404, retryable: false })
    const stranger = new NeuronClient({ url: proxy.url, token: 'not-a-token' })
    await expect(stranger.me()).rejects.toMatchObject({ code: 'TOKEN_MALFORMED', status: 401 })
    const session = await neuron.createSession()
    await expect(session.prompt({ text: '' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    const offline = new NeuronClient({ url: 'http://127.0.0.1:9', token: 't' })
    await expect(offline.session('x').prompt('hi', { retries: 1 })).rejects.toMatchObject({ code: 'NETWORK', status: 0 })
  })

  it('SSE: a network drop mid-turn reconnects with Last-Event-ID; no event skipped or repeated', async () => {
    const session = await neuron.createSession()
    await session.prompt('/tokens 60\n/slow 40')
    const events: Stored[] = []
    let reconnects = 0
    let dropped = false
    for await (const frame of session.events({ onReconnect: () => reconnects++ })) {
      if (frame.kind === 'delta' && !dropped) {
        // Mid-turn: text is streaming and the step has not ended.
        dropped = proxy.drop() > 0
      }
      if (frame.kind !== 'event') continue
      events.push(frame.envelope)
      if (frame.envelope.type === DONE) break
    }
    expect(dropped).toBe(true)
    expect(reconnects).toBeGreaterThanOrEqual(1)
    const seqs = events.map((e) => e.seq)
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(seqs).toEqual((await everything(session.id)).map((e) => e.seq))
    expect(events.map((e) => e.type)).toContain('session.next.step.ended')
  })

  it('WebSocket mode follows a history longer than one replay page (the client asks for each page)', async () => {
    const session = await neuron.createSession()
    await session.prompt(Array.from({ length: 220 }, () => '/tool calculator {"expression":"1+1"}').join('\n'))
    for await (const frame of session.events()) if (frame.kind === 'event' && frame.envelope.type === DONE) break
    const history = await everything(session.id)
    expect(history.length).toBeGreaterThan(400)
    const socket = neuron.socket(session.id)
    try {
      const seen: SocketFrame[] = []
      for await (const frame of socket.frames()) {
        seen.push(frame)
        if (frame.kind === 'replay-end') break
      }
      expect(seen.flatMap((f) => (f.kind === 'event' ? [f.envelope.seq] : []))).toEqual(history.map((e) => e.seq))
      expect(seen.filter((f) => f.kind === 'replay-end')).toHaveLength(1)
      // Replay pages are not replies: the socket still matches its requests to their answers.
      expect(await socket.interrupt()).toMatchObject({ interrupted: false })
    } finally {
      socket.close()
    }
  })

  it('WebSocket mode with tickets: prompt, follow, survive a drop mid-turn, interrupt', async () => {
    const { id } = await neuron.createSession()
    const socket = neuron.socket(id)
    try {
      const { receipt } = await socket.prompt('/tokens 60\n/slow 40')
      expect(receipt.status).toBe('admitted')
      const events: Stored[] = []
      let dropped = false
      for await (const frame of socket.frames()) {
        if (frame.kind === 'delta' && !dropped) dropped = proxy.drop() > 0
        if (frame.kind !== 'event') continue
        events.push(frame.envelope)
        if (frame.envelope.type === DONE) break
      }
      expect(dropped).toBe(true)
      expect(events.map((e) => e.seq)).toEqual((await everything(id)).map((e) => e.seq))
      // The socket reconnected by itself (a new ticket each time) and still takes requests.
      expect(await socket.interrupt()).toMatchObject({ interrupted: false, message: 'nothing was running' })
      await expect(socket.prompt({ text: 'x', delivery: 'sideways' as 'queue' })).rejects.toMatchObject({ code: 'INVALID_MESSAGE' })
    } finally {
      socket.close()
    }
  })

  /**
   * A turn with a queued prompt behind it, interrupted twice 40 ms apart (a double click, or a
   * retry) by a client naming the turn its frames show. Returns whether the queued prompt's turn
   * ran to its end (it must: the second interrupt is for the turn that already ended).
   */
  async function doubleInterrupt(follow: AsyncIterable<SessionFrame>, interrupt: () => Promise<unknown>, prompt: (text: string) => Promise<unknown>): Promise<{ queuedRan: boolean; requested: number }> {
    await prompt('/tool wait {"ms":20000}')
    await prompt('/tool wait {"ms":600}')
    let clicks: Promise<unknown> | null = null
    let queuedRan = false
    let requested = 0
    for await (const frame of follow) {
      if (frame.kind !== 'event') continue
      const { type, payload } = frame.envelope as Stored & { payload: { name?: string; input?: { ms?: number }; content?: string } }
      if (type === 'session.next.interrupt.requested') requested++
      if (type === 'session.next.tool.called' && payload.input?.ms === 20000) {
        clicks = (async () => {
          const first = interrupt()
          await new Promise((r) => setTimeout(r, 40))
          await Promise.all([first, interrupt()])
        })()
      }
      if (type === 'session.next.tool.succeeded' && payload.content?.includes('"waitedMs":600')) queuedRan = true
      if (type === DONE) break
    }
    await clicks
    return { queuedRan, requested }
  }

  it('interrupts name the turn shown: two 40 ms apart never stop the queued prompt (typed client, 5 of 5)', async () => {
    const lost: number[] = []
    for (let trial = 0; trial < 5; trial++) {
      const session = await neuron.createSession()
      const shown = new ShownTurn()
      const stop = new AbortController()
      const frames = (async function* () {
        for await (const frame of session.events({ signal: stop.signal })) {
          shown.apply(frame)
          yield frame
        }
      })()
      const { queuedRan, requested } = await doubleInterrupt(frames, () => session.interrupt(shown.target()), (text) => session.prompt(text))
      stop.abort()
      if (!queuedRan) lost.push(trial)
      expect(requested).toBe(1)
    }
    expect(lost).toEqual([])
  })

  it('interrupts name the turn shown: two 40 ms apart never stop the queued prompt (socket client, 5 of 5)', async () => {
    const lost: number[] = []
    for (let trial = 0; trial < 5; trial++) {
      const { id } = await neuron.createSession()
      const socket = neuron.socket(id)
      try {
        const frames = (async function* () {
          for await (const frame of socket.frames()) if (frame.kind === 'event' || frame.kind === 'delta' || frame.kind === 'snapshot' || frame.kind === 'replay-end') yield frame as SessionFrame
        })()
        const { queuedRan, requested } = await doubleInterrupt(frames, () => socket.interrupt(), (text) => socket.prompt(text))
        if (!queuedRan) lost.push(trial)
        expect(requested).toBe(1)
      } finally {
        socket.close()
      }
    }
    expect(lost).toEqual([])
  })

  it('a retried interrupt keeps its id and step: a lost answer never reaches the next turn', async () => {
    let lostAnswers = 0
    const flaky = new NeuronClient({
      url: proxy.url,
      token: await devToken('client'),
      fetch: async (input, init) => {
        const res = await fetch(input, init)
        // The server recorded it; the answer never arrives, and the retry comes after the turn ended.
        if (String(input).endsWith('/interrupt') && lostAnswers++ === 0) {
          await new Promise((r) => setTimeout(r, 1500))
          throw new TypeError('fetch failed: socket hang up')
        }
        return res
      },
    })
    const session = await flaky.createSession()
    await session.prompt('/tool wait {"ms":20000}')
    await session.prompt('/tool wait {"ms":2500}')
    const stop = new AbortController()
    const types: string[] = []
    let answer: unknown
    for await (const frame of session.events({ signal: stop.signal })) {
      if (frame.kind !== 'event') continue
      types.push(frame.envelope.type)
      const p = frame.envelope.payload as { input?: { ms?: number } }
      if (frame.envelope.type === 'session.next.tool.called' && p.input?.ms === 20000) void session.interrupt().then((a) => (answer = a))
      if (frame.envelope.type === DONE) break
    }
    expect(lostAnswers).toBe(2)
    expect(answer).toMatchObject({ interrupted: true, duplicate: true })
    expect(types.filter((t) => t === 'session.next.interrupt.requested')).toHaveLength(1)
    expect(types.filter((t) => t === 'session.next.tool.succeeded')).toHaveLength(1)
  })
})
