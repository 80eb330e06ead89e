import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { Page } from '../../objects/ledger/page.ts'
import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import { SseTail } from '../../objects/session/sse-tail.ts'

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

async function drain(response: Response, until: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.getReader()
  const parser = new SseParser()
  const events: SseEvent[] = []
  while (!until(events)) {
    const { value, done } = await reader.read()
    if (done) break
    parser.push(value, events)
  }
  await reader.cancel()
  return events
}

describe('SseTail', () => {
  it('holds live events that arrive mid-replay and releases only those newer than the replay, after the marker', async () => {
    // The log holds 1..6 in pages of 2. While page 2 is being read, events 5, 6 (also in the log)
    // and 7, 8 (new) arrive live; deltas arriving then are air and dropped.
    const log = [1, 2, 3, 4, 5, 6].map(envelope)
    const tail = new SseTail(() => {}, 60_000)
    let reads = 0
    const read = (after: number): Page => {
      reads++
      if (reads === 2) {
        for (const seq of [5, 6, 7, 8]) tail.push({ kind: 'event', envelope: envelope(seq) })
        tail.push({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: 'dropped' } })
      }
      const items = log.filter((e) => e.seq > after).slice(0, 2)
      const last = items.at(-1)
      return { items, next: last && last.seq < 6 ? last.seq : null }
    }
    const replayed = tail.replay(read, 0)
    const events = await drain(tail.response, (list) => list.some((e) => e.id === '8'))
    await replayed
    expect(events.map((e) => (e.event === 'replay-end' ? `end:${JSON.parse(e.data).seq}` : e.id))).toEqual(['1', '2', '3', '4', '5', '6', 'end:6', '7', '8'])
    expect(events.some((e) => e.event === 'delta')).toBe(false)
    tail.close()
  })

  it('after replay, live frames (durable and air) flow straight through', async () => {
    const tail = new SseTail(() => {}, 60_000)
    await tail.replay(() => ({ items: [envelope(1)], next: null }), 0)
    tail.push({ kind: 'delta', delta: { type: 'text-delta', step: 's', text: 'hi' } })
    tail.push({ kind: 'event', envelope: envelope(2) })
    const events = await drain(tail.response, (list) => list.some((e) => e.id === '2' && e.event !== 'delta'))
    expect(events.map((e) => e.event)).toEqual(['session.next.text', 'replay-end', 'delta', 'session.next.text'])
    tail.close()
  })

  it('sends heartbeats while idle, and stops when closed', async () => {
    let closed = 0
    const tail = new SseTail(() => closed++, 20)
    await tail.replay(() => ({ items: [], next: null }), 0)
    const reader = tail.response.body!.getReader()
    let text = ''
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value)
    tail.close()
    tail.close()
    expect(closed).toBe(1)
  })
})
