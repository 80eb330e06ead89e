import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { Page } from '../../objects/ledger/page.ts'
import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import { SseTail } from '../../objects/delivery/sse-tail.ts'

const envelope = (seq: number): Stored => ({
  v: 'event-bus-envelope-v1',
  id: String(seq).padStart(64, '0'),
  seq,
  topic: 'session.t',
  type: 'session.next.text',
  parent: null,
  author: 'test',
  time: seq,
  headers: [],
  artifacts: [],
  payload: { seq },
})

/** An in-memory log in pages of `size`, standing in for `ledger.byTopic`. */
function memoryLog(size = 2) {
  const log: Stored[] = []
  let reads = 0
  const read = (after: number): Page => {
    reads++
    const items = log.filter((e) => e.seq > after).slice(0, size)
    const last = items.at(-1)
    return { items, next: last && log.some((e) => e.seq > last.seq) ? last.seq : null }
  }
  return { log, read, reads: () => reads, append: (seq: number) => log.push(envelope(seq)) }
}

/** Appends the next event of a chain (its parent is the one before it, as in a session) and returns it. */
function chained(mem: ReturnType<typeof memoryLog>, seq: number): Stored {
  const next = { ...envelope(seq), parent: mem.log.at(-1)?.id ?? null }
  mem.log.push(next)
  return next
}

describe('SseTail', () => {
  it('replays pages from the log, marks where replay ended, then delivers appends as they are notified', async () => {
    const mem = memoryLog(2)
    for (const seq of [1, 2, 3, 4, 5]) mem.append(seq)
    const tail = new SseTail(mem.read, 0, () => {}, { heartbeatMs: 60_000 })
    const replayed = await drainUntil(tail, (list) => list.some((e) => e.event === 'replay-end'))
    expect(replayed.map(label)).toEqual(['1', '2', '3', '4', '5', 'end:5'])
    mem.append(6)
    mem.append(7)
    tail.notify()
    const live = await drainUntil(tail, (list) => list.some((e) => e.id === '7'))
    expect(live.map(label)).toEqual(['6', '7'])
    tail.close()
  })

  it('resumes after a sequence: exactly the events after it', async () => {
    const mem = memoryLog(3)
    for (let seq = 1; seq <= 10; seq++) mem.append(seq)
    const tail = new SseTail(mem.read, 6, () => {}, { heartbeatMs: 60_000 })
    const events = await drainUntil(tail, (list) => list.some((e) => e.event === 'replay-end'))
    expect(events.map(label)).toEqual(['7', '8', '9', '10', 'end:10'])
    tail.close()
  })

  it('reads the log only as fast as its reader takes bytes: a stalled reader costs one page, not the history', async () => {
    const mem = memoryLog(50)
    // ~20 MB of frames in the log; the reader never reads.
    const big = 'x'.repeat(4000)
    for (let seq = 1; seq <= 5000; seq++) mem.log.push({ ...envelope(seq), payload: { big } })
    const tail = new SseTail(mem.read, 0, () => {}, { heartbeatMs: 60_000 })
    await new Promise((r) => setTimeout(r, 50))
    // The stream filled its high-water mark (256 KiB ≈ 60 frames) and stopped pulling.
    expect(mem.reads()).toBeLessThanOrEqual(3)
    expect(tail.position).toBeLessThan(200)
    const events = await drainUntil(tail, (list) => list.some((e) => e.event === 'replay-end'), 5_000)
    expect(events.filter((e) => e.event !== 'replay-end').map((e) => Number(e.id))).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1))
    tail.close()
  })

  it('air reaches a caught-up tail only; a lagging tail drops it (durable events still arrive)', async () => {
    const mem = memoryLog(2)
    mem.append(1)
    const tail = new SseTail(mem.read, 0, () => {}, { heartbeatMs: 60_000 })
    tail.air({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: 'before replay: dropped' } }, 1)
    await drainUntil(tail, (list) => list.some((e) => e.event === 'replay-end'))
    tail.air({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: 'caught up' } }, 1)
    mem.append(2)
    tail.air({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: 'behind: dropped' } }, 2)
    tail.notify()
    const events = await drainUntil(tail, (list) => list.some((e) => e.id === '2'))
    expect(events.map((e) => (e.event === 'delta' ? JSON.parse(e.data).text : label(e)))).toEqual(['caught up', '2'])
    tail.close()
  })

  it('follows replay-end with the open step snapshot, and replaces dropped air with a snapshot once caught up', async () => {
    const mem = memoryLog(2)
    mem.append(1)
    let open = { step: 's', text: 'Hel', reasoning: '', tools: [], complete: true }
    const tail = new SseTail(mem.read, 0, () => {}, { heartbeatMs: 60_000, snapshot: () => ({ kind: 'snapshot', snapshot: open }) })
    const replayed = await drainUntil(tail, (list) => list.some((e) => e.event === 'snapshot'))
    expect(replayed.map((e) => (e.event === 'snapshot' ? `snap:${JSON.parse(e.data).text}` : label(e)))).toEqual(['1', 'end:1', 'snap:Hel'])
    // An event lands and a delta follows before the tail has read it: the delta is dropped...
    mem.append(2)
    open = { ...open, text: 'Hello' }
    tail.air({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: 'lo' } }, 2)
    tail.notify()
    // ...and the tail, caught up again, gets the snapshot that holds it; later air flows as deltas.
    const caught = await drainUntil(tail, (list) => list.some((e) => e.event === 'snapshot'))
    expect(caught.map((e) => (e.event === 'snapshot' ? `snap:${JSON.parse(e.data).text}` : label(e)))).toEqual(['2', 'snap:Hello'])
    tail.air({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: '!' } }, 2)
    const live = await drainUntil(tail, (list) => list.some((e) => e.event === 'delta'))
    expect(live.map((e) => e.event)).toEqual(['delta'])
    tail.close()
  })

  it('a caught-up tail takes the next event of the chain from its append, without reading the log back', async () => {
    const mem = memoryLog(2)
    chained(mem, 1)
    chained(mem, 2)
    const tail = new SseTail(mem.read, 0, () => {}, { heartbeatMs: 60_000 })
    await drainUntil(tail, (list) => list.some((e) => e.event === 'replay-end'))
    // Let the pull find the log empty and wait for the next append.
    await new Promise((r) => setTimeout(r, 10))
    const reads = mem.reads()
    tail.notify(chained(mem, 3))
    tail.notify(chained(mem, 4))
    const live = await drainUntil(tail, (list) => list.some((e) => e.id === '4'))
    expect(live.map(label)).toEqual(['3', '4'])
    expect(mem.reads()).toBe(reads)
    expect(tail.position).toBe(4)
    tail.close()
  })

  it('reads the log when an event does not follow the last one queued: nothing between them is skipped', async () => {
    const mem = memoryLog(2)
    chained(mem, 1)
    const tail = new SseTail(mem.read, 0, () => {}, { heartbeatMs: 60_000 })
    await drainUntil(tail, (list) => list.some((e) => e.event === 'replay-end'))
    await new Promise((r) => setTimeout(r, 10))
    // 2 went into the log without a notification; 3 names 2 as its parent, which the tail never queued.
    chained(mem, 2)
    const third = chained(mem, 3)
    const reads = mem.reads()
    tail.notify(third)
    const live = await drainUntil(tail, (list) => list.some((e) => e.id === '3'))
    expect(live.map(label)).toEqual(['2', '3'])
    expect(mem.reads()).toBeGreaterThan(reads)
    // The same event announced twice (already queued by the pull) is not sent again.
    tail.notify(third)
    tail.notify(chained(mem, 4))
    const after = await drainUntil(tail, (list) => list.some((e) => e.id === '4'))
    expect(after.map(label)).toEqual(['4'])
    tail.close()
  })

  it('sends heartbeats while idle, and stops when closed', async () => {
    let closed = 0
    const tail = new SseTail(() => ({ items: [], next: null }), 0, () => closed++, { heartbeatMs: 20 })
    const reader = tail.response.body!.getReader()
    let text = ''
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value)
    tail.close()
    tail.close()
    expect(closed).toBe(1)
  })

  it('closes a reader that takes nothing for the stall limit while events wait for it', async () => {
    const mem = memoryLog(50)
    const big = 'x'.repeat(4000)
    for (let seq = 1; seq <= 500; seq++) mem.log.push({ ...envelope(seq), payload: { big } })
    let closed = 0
    new SseTail(mem.read, 0, () => closed++, { heartbeatMs: 10, stallMs: 100 })
    await new Promise((r) => setTimeout(r, 300))
    expect(closed).toBe(1)
    // A caught-up idle reader is not stalled: it is waiting for events, not refusing them.
    const idle = new SseTail(() => ({ items: [], next: null }), 0, () => closed++, { heartbeatMs: 10, stallMs: 50 })
    const reader = idle.response.body!.getReader()
    const reading = (async () => {
      for (;;) if ((await reader.read()).done) return
    })()
    await new Promise((r) => setTimeout(r, 200))
    expect(closed).toBe(1)
    idle.close()
    await reading
  })
})

const label = (e: SseEvent) => (e.event === 'replay-end' ? `end:${JSON.parse(e.data).seq}` : e.id)

/** Reads from the tail until `until` holds, keeping the stream open (unlike `drain`). */
const readers = new WeakMap<SseTail, ReadableStreamDefaultReader<Uint8Array>>()
async function drainUntil(tail: SseTail, until: (events: SseEvent[]) => boolean, timeoutMs = 2_000): Promise<SseEvent[]> {
  let reader = readers.get(tail)
  if (!reader) readers.set(tail, (reader = tail.response.body!.getReader()))
  const parser = new SseParser()
  const events: SseEvent[] = []
  const deadline = Date.now() + timeoutMs
  while (!until(events)) {
    if (Date.now() > deadline) throw new Error(`not met; got ${events.map(label).join(',')}`)
    const { value, done } = await reader.read()
    if (done) break
    parser.push(value, events)
  }
  return events.filter((e) => e.event !== undefined || e.data !== undefined)
}
