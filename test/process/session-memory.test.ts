/**
 * Memory of a real `wrangler dev` process under a long session and long replays.
 * A deployed isolate has 128 MB, so what a session keeps alive must not grow
 * with its history, and a replay or a slow reader must not buffer the history.
 * The figures are printed for docs/benchmarks.md; the assertions are bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import { inspectorOf, type Inspector } from '../support/inspector.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const TURNS = Number(process.env.NEURON_MEMORY_TURNS ?? 1_000)
/** The long session stops early after this long (a loaded machine is slow); it must reach `MIN_TURNS`. */
const TURNS_BUDGET_MS = 60_000
const MIN_TURNS = 200
const TOOL_CALLS_PER_PROMPT = 250
const SEED_PROMPTS = Number(process.env.NEURON_REPLAY_PROMPTS ?? 60)
const STALLED_READERS = 20

describe('bounded memory in a real wrangler dev process', () => {
  let dev: Wrangler
  let inspector: Inspector
  let auth: Record<string, string>
  const json = { 'content-type': 'application/json' }
  beforeAll(async () => {
    dev = await startWrangler()
    inspector = inspectorOf(dev.inspectorPort, dev.url)
    auth = { authorization: `Bearer ${await devToken()}` }
  })
  afterAll(async () => {
    inspector?.close()
    await dev?.stop()
  })
  const post = (path: string, body: unknown) => fetch(`${dev.url}${path}`, { method: 'POST', headers: { ...json, ...auth }, body: JSON.stringify(body) })
  const rss = () => dev.workerdRssMb().reduce((a, b) => a + b, 0)

  it(`a ${TURNS}-turn session: the live heap stays flat`, { timeout: TURNS_BUDGET_MS + 90_000 }, async () => {
    expect((await post('/v1/sessions', { id: 'long' })).status).toBe(201)
    const { ticket } = (await (await post('/v1/sessions/long/tickets', {})).json()) as { ticket: string }
    const ws = new WebSocket(`${dev.url.replace('http', 'ws')}/v1/sessions/long/ws?ticket=${encodeURIComponent(ticket)}`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    let drains = 0
    let wake = () => {}
    ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { type: string; event?: { type: string } }
      if (message.event?.type === 'session.next.drain.ended') drains++, wake()
    })
    ws.send(JSON.stringify({ type: 'subscribe', after: 0 }))
    const figures: string[] = []
    const samples: { turn: number; heap: number }[] = []
    const started = Date.now()
    // Turn time is measured per block of 100 turns and excludes the heap samples: a sample forces a
    // full GC through the inspector and may wait out unanswered calls (10 s each), which once made
    // a flat 15–90 ms turn read as 130–315 ms.
    let blockStarted = started
    let turn = 0
    while (turn < TURNS && Date.now() - started < TURNS_BUDGET_MS) {
      turn++
      const target = turn
      const done = new Promise<void>((resolve) => (wake = () => drains >= target && resolve()))
      ws.send(JSON.stringify({ type: 'prompt', id: `m${turn}`, text: `turn ${turn}: say something short` }))
      await done
      // Measured while the socket is open and the session idle between turns.
      if (turn % 100 === 0) {
        const turnsMs = (Date.now() - blockStarted) / 100
        const sampleStarted = Date.now()
        samples.push({ turn, heap: await inspector.liveHeapMb() })
        const sampleMs = Date.now() - sampleStarted
        figures.push(`turn ${turn}: live heap ${samples.at(-1)!.heap.toFixed(1)} MiB, workerd RSS ${rss()} MiB, turns ${turn - 99}–${turn} ${turnsMs.toFixed(1)} ms/turn (heap sample took ${sampleMs} ms)`)
        blockStarted = Date.now()
      }
    }
    ws.close()
    console.log(figures.join('\n'))
    expect(turn).toBeGreaterThanOrEqual(MIN_TURNS)
    const first = samples[0]!
    const last = samples.at(-1)!
    // What the model is shown is bounded by the context epoch; everything else the session keeps is
    // bounded outright. 1,000 turns may add at most 4 MiB.
    expect(last.heap - first.heap).toBeLessThan(4 * Math.max(1, (last.turn - first.turn) / 1000))
  })

  it(`an SSE replay of a long session streams page by page, with ${STALLED_READERS} stalled readers beside it`, { timeout: 240_000 }, async () => {
    expect((await post('/v1/sessions', { id: 'replayed' })).status).toBe(201)
    const calls = Array.from({ length: TOOL_CALLS_PER_PROMPT }, (_, i) => `/tool calculator {"expression":"${i}+1"}`).join('\n')
    for (let i = 0; i < SEED_PROMPTS; i++) expect((await post('/v1/sessions/replayed/prompt', { id: `seed${i}`, text: calls })).status).toBe(202)
    for (;;) {
      const view = (await (await fetch(`${dev.url}/v1/sessions/replayed`, { headers: auth })).json()) as { status: string; lastSequence: number }
      if (view.status === 'idle') break
      await new Promise((r) => setTimeout(r, 250))
    }
    const total = ((await (await fetch(`${dev.url}/v1/sessions/replayed`, { headers: auth })).json()) as { counts: { events: number } }).counts.events
    expect(total).toBeGreaterThan(SEED_PROMPTS * TOOL_CALLS_PER_PROMPT * 2)
    const heapBefore = await inspector.liveHeapMb()
    const rssBefore = rss()

    // Readers that open the stream and never read a byte.
    const stalled = await Promise.all(Array.from({ length: STALLED_READERS }, () => fetch(`${dev.url}/v1/sessions/replayed/events`, { headers: auth })))
    const started = Date.now()
    const res = await fetch(`${dev.url}/v1/sessions/replayed/events`, { headers: auth })
    const reader = res.body!.getReader()
    const parser = new SseParser()
    const seen: SseEvent[] = []
    let firstByteMs = -1
    let heapMid = 0
    let sequences = 0
    let lastSeq = 0
    let ordered = true
    while (!seen.some((e) => e.event === 'replay-end')) {
      const { done, value } = await reader.read()
      if (done) break
      if (firstByteMs < 0) firstByteMs = Date.now() - started
      parser.push(value, seen)
      for (const event of seen.splice(0, seen.length - 1)) {
        if (event.id === undefined) continue
        ordered &&= Number(event.id) === lastSeq + 1 || lastSeq === 0
        lastSeq = Number(event.id)
        sequences++
        if (sequences === Math.floor(total / 2)) heapMid = await inspector.liveHeapMb()
      }
    }
    const replayMs = Date.now() - started
    const heapAfter = await inspector.liveHeapMb()
    const rssAfter = rss()
    await reader.cancel()
    for (const s of stalled) await s.body!.cancel()
    console.log(
      `SSE replay of ${total} events: first byte after ${firstByteMs} ms, all in ${replayMs} ms; ` +
        `live heap ${heapBefore.toFixed(1)} → ${heapMid.toFixed(1)} (mid-replay) → ${heapAfter.toFixed(1)} MiB with ${STALLED_READERS} stalled readers; ` +
        `workerd RSS ${rssBefore} → ${rssAfter} MiB`,
    )
    expect(ordered).toBe(true)
    expect(sequences + 1).toBeGreaterThanOrEqual(total)
    expect(firstByteMs).toBeLessThan(2_000)
    // One page per reader (at most 4 MiB) plus each stream's 256 KiB high-water mark, not the history.
    expect(heapMid - heapBefore).toBeLessThan(32)
    expect(heapAfter - heapBefore).toBeLessThan(32)
  })
})
