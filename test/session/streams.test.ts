import { describe, expect, it } from 'vitest'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'
import { REPLAY_PAGE } from '../../objects/delivery/subscribers.ts'
import { openSocket, readSse } from '../support/streams.ts'

const durable = (name: string) => name.startsWith('session.next.')

/** Asks for the next replay page after each `replay-page` until the socket gets `replay-end`. */
async function pageToEnd(socket: Awaited<ReturnType<typeof openSocket>>): Promise<void> {
  for (;;) {
    const last = socket.messages.at(-1)!
    if (last.type === 'replay-end') return
    socket.send({ type: 'subscribe', after: last.seq })
    const before = socket.messages.length
    await socket.until((m) => m.length > before && ['replay-page', 'replay-end'].includes(m.at(-1)!.type as string))
  }
}

describe('SSE: replay, then live tail', () => {
  it('replays after N, marks where replay ended, then tails live events and ephemeral deltas', async () => {
    const { id } = await newSession()
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'first' })
    await waitIdle(id)
    const before = (await events(id)).length
    const res = await api(`/v1/sessions/${id}/events?after=2`)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const pending = readSse(res, (seen) => seen.some((e) => e.event === 'session.next.drain.ended' && Number(e.id) > before))
    await postJson(`/v1/sessions/${id}/prompt`, { text: '/tokens 50' })
    const seen = await pending
    const ids = seen.filter((e) => durable(e.event)).map((e) => Number(e.id))
    expect(ids[0]).toBe(3)
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 3 + i))
    const marker = seen.findIndex((e) => e.event === 'replay-end')
    expect(JSON.parse(seen[marker]!.data)).toEqual({ seq: before })
    // Deltas are live only: they come after the marker, spell exactly the durable text
    // (coalesced per network chunk), and none is in the durable history.
    const deltas = seen.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data) as { type: string; text: string })
    expect(deltas.length).toBeGreaterThan(0)
    expect(seen.findIndex((e) => e.event === 'delta')).toBeGreaterThan(marker)
    const durableText = (await events(id)).findLast((e) => e.type === 'session.next.text')!.payload as { text: string }
    expect(deltas.map((d) => d.text).join('')).toBe(durableText.text)
    expect(durableText.text.split(' ')).toHaveLength(50)
    expect((await events(id)).some((e) => e.type.includes('delta'))).toBe(false)
  })

  it('a client that drops at N and reconnects with Last-Event-ID: N gets exactly the events after N', async () => {
    const { id } = await newSession()
    await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool calculator {"expression":"1+1"}' })
    await waitIdle(id)
    // First connection: read up to sequence 5, then drop.
    const first = await readSse(await api(`/v1/sessions/${id}/events`), (seen) => seen.some((e) => e.id === '5'))
    const lastSeen = Math.max(...first.filter((e) => durable(e.event)).map((e) => Number(e.id)))
    // While disconnected, the session moves on.
    await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool calculator {"expression":"2+2"}' })
    await waitIdle(id)
    const total = (await events(id)).length
    const second = await readSse(
      await api(`/v1/sessions/${id}/events`, { headers: { 'last-event-id': String(lastSeen) } }),
      (seen) => seen.some((e) => e.event === 'replay-end'),
    )
    const resumed = second.filter((e) => durable(e.event)).map((e) => Number(e.id))
    expect(resumed).toEqual(Array.from({ length: total - lastSeen }, (_, i) => lastSeen + 1 + i))
  })

  it('a replay over several pages, then a live turn: every event once, in order', async () => {
    const { id } = await newSession()
    // Over 500 events, so the replay takes more than one page and yields between pages.
    await Promise.all(Array.from({ length: 120 }, (_, i) => postJson(`/v1/sessions/${id}/prompt`, { id: `p${i}`, text: `p${i}` })))
    await waitIdle(id, 60_000)
    const before = (await events(id)).length
    expect(before).toBeGreaterThan(500)
    const res = await api(`/v1/sessions/${id}/events`)
    // A whole turn happens between opening the stream and reading it.
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'late', text: '/tool calculator {"expression":"1+2"}' })
    await waitIdle(id)
    const seen = await readSse(res, (list) => list.some((e) => e.event === 'session.next.drain.ended' && Number(e.id) > before))
    const ids = seen.filter((e) => durable(e.event)).map((e) => Number(e.id))
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1))
    expect(ids.length).toBeGreaterThan(before)
    expect(seen.filter((e) => e.event === 'replay-end')).toHaveLength(1)
    // 120 turns: the test's own waits allow a minute on a loaded machine, so the test does too.
  }, 90_000)
})

describe('WebSocket (hibernation API)', () => {
  it('interrupts a running turn from the same socket', async () => {
    const { id } = await newSession()
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.send({ type: 'subscribe', after: 0 })
    socket.send({ type: 'prompt', id: 'slow', text: '/tool wait {"ms":30000}' })
    await socket.until((m) => m.some((x) => x.type === 'event' && (x.event as { type: string }).type === 'session.next.tool.called'))
    socket.send({ type: 'interrupt' })
    await socket.until((m) => m.some((x) => x.type === 'event' && (x.event as { type: string }).type === 'session.next.interrupted'))
    expect(socket.messages.find((x) => x.type === 'interrupt')).toMatchObject({ interrupted: true, pending: 0 })
    socket.close()
    await waitIdle(id) // the drain still ends after the interrupt: the file must not end under it
  })

  it('subscribes from a sequence, prompts and interrupts on the same socket, same events and receipts as HTTP', async () => {
    const { id } = await newSession()
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.send({ type: 'subscribe', after: 0 })
    await socket.until((m) => m.some((x) => x.type === 'replay-end'))
    socket.send({ type: 'prompt', id: 'w1', text: '/tool calculator {"expression":"3*3"}' })
    const received = await socket.until((m) => m.some((x) => x.type === 'event' && (x.event as { type: string }).type === 'session.next.drain.ended'))
    expect(received.find((m) => m.type === 'receipt')).toEqual({ type: 'receipt', receipt: { id: 'w1', session: id, sequence: 2, status: 'admitted' }, duplicate: false })
    socket.send({ type: 'prompt', id: 'w1', text: '/tool calculator {"expression":"3*3"}' })
    await socket.until((m) => m.filter((x) => x.type === 'receipt').length === 2)
    expect(socket.messages.filter((x) => x.type === 'receipt')[1]).toMatchObject({ duplicate: true, receipt: { sequence: 2 } })
    socket.send({ type: 'interrupt' })
    await socket.until((m) => m.some((x) => x.type === 'interrupt'))
    expect(socket.messages.find((x) => x.type === 'interrupt')).toMatchObject({ interrupted: false })
    const seqs = socket.messages.filter((m) => m.type === 'event').map((m) => m.seq as number)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1))
    expect(seqs.length).toBe((await events(id)).length)
    socket.close()
  })

  it('reconnect with after: N receives exactly the events after N', async () => {
    const { id } = await newSession()
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'one' })
    await waitIdle(id)
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'two' })
    await waitIdle(id)
    const total = (await events(id)).length
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.send({ type: 'subscribe', after: 4 })
    const got = await socket.until((m) => m.some((x) => x.type === 'replay-end'))
    expect(got.filter((m) => m.type === 'event').map((m) => m.seq)).toEqual(Array.from({ length: total - 4 }, (_, i) => 5 + i))
    expect(got.find((m) => m.type === 'replay-end')).toEqual({ type: 'replay-end', seq: total })
    socket.close()
  })

  it('a replay longer than a page is paced by the client: replay-page, subscribe after it, then replay-end and live', async () => {
    const { id } = await newSession()
    const calls = Array.from({ length: 220 }, () => '/tool calculator {"expression":"1+1"}').join('\n')
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'many', text: calls })
    await waitIdle(id, 60_000)
    const total = (await events(id)).length
    expect(total).toBeGreaterThan(2 * REPLAY_PAGE)
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.send({ type: 'subscribe', after: 0 })
    // One page only: the server sends nothing more until the client asks.
    await socket.until((m) => m.some((x) => x.type === 'replay-page'))
    await new Promise((r) => setTimeout(r, 100))
    expect(socket.messages.filter((m) => m.type === 'event')).toHaveLength(REPLAY_PAGE)
    expect(socket.messages.at(-1)).toEqual({ type: 'replay-page', seq: REPLAY_PAGE })
    // A live turn while the client is mid-replay: the socket is not live yet, so it gets it by paging.
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'during', text: 'during the replay' })
    await waitIdle(id)
    await pageToEnd(socket)
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'after', text: 'live now' })
    await waitIdle(id)
    const all = await events(id)
    await socket.until((m) => m.filter((x) => x.type === 'event').length === all.length)
    const seqs = socket.messages.filter((m) => m.type === 'event').map((m) => m.seq as number)
    expect(seqs).toEqual(all.map((e) => e.seq))
    // A live socket that asks for the replay again leaves the live set: a turn while it pages
    // reaches it by paging only, so every event comes once, in order (the live set is rebuilt).
    const from = socket.messages.length
    socket.send({ type: 'subscribe', after: 0 })
    await socket.until((m) => m.length > from && m.at(-1)!.type === 'replay-page')
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'again', text: 'during the second replay' })
    await waitIdle(id)
    await pageToEnd(socket)
    const again = socket.messages.slice(from).filter((m) => m.type === 'event').map((m) => m.seq as number)
    expect(again).toEqual((await events(id)).map((e) => e.seq))
    socket.close()
  })

  it('answers malformed messages with a coded error and keeps the socket open', async () => {
    const { id } = await newSession()
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.ws.send('not json')
    socket.send({ type: 'dance' })
    socket.send({ type: 'prompt', text: 'x', delivery: 'whenever' })
    const errors = await socket.until((m) => m.filter((x) => x.type === 'error').length === 3)
    expect(errors.map((m) => (m.error as { code: string }).code)).toEqual(['INVALID_JSON', 'INVALID_MESSAGE', 'INVALID_MESSAGE'])
    socket.send({ type: 'prompt', text: 'still works' })
    await socket.until((m) => m.some((x) => x.type === 'receipt'))
    socket.close()
    // Its turn runs on after the receipt: a file that ends under a running turn tears workerd's
    // module loading down mid-request (vitest's EnvironmentTeardownError).
    await waitIdle(id)
  })
})
