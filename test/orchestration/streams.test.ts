import { describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { api } from '../support/api.ts'
import { token } from '../support/auth.ts'
import { decisions, finished, newOrchestration, script, waitUntil } from '../support/orchestration.ts'
import { openSocket, readSse } from '../support/streams.ts'

describe('orchestration streams', () => {
  it('SSE replays after Last-Event-ID, marks the replay end, then tails live decisions to the finish', async () => {
    const plan = [
      { id: 'a', instructions: script('a', {}, 30) },
      { id: 'b', needs: ['a'], instructions: script('b', {}, 30) },
    ]
    const { id } = await newOrchestration({ plan })
    const seen = await readSse(
      await api(`/v1/orchestrations/${id}/events`, { headers: { 'last-event-id': '1' } }),
      (events) => events.some((e) => e.event === 'orchestration.finished'),
      30_000,
    )
    const ids = seen.filter((e) => e.event.startsWith('orchestration.')).map((e) => Number(e.id))
    // Exactly the decisions after sequence 1, each once, in order (agents' inputs share the
    // ledger's sequence but live on their own addresses, so the numbers have gaps).
    // (A late step's burn may land after `finished`; the stream was read up to `finished`.)
    const last = ids.at(-1)!
    expect(ids).toEqual((await decisions(id)).map((e) => e.seq).filter((seq) => seq > 1 && seq <= last))
    expect(seen.some((e) => e.event === 'replay-end')).toBe(true)
  })

  it('a WebSocket subscribes after a sequence and gets exactly the decisions after it', async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    await waitUntil(id, finished)
    const socket = await openSocket(`/v1/orchestrations/${id}/ws`)
    socket.send({ type: 'subscribe', after: 3 })
    const messages = await socket.until((m) => m.some((x) => x.type === 'replay-end'))
    const seqs = messages.filter((m) => m.type === 'event').map((m) => m.seq as number)
    // A late step's burn may land after `finished`, so the ledger is read after the replay and
    // compared up to the last sequence the socket saw: none missing, none twice, none before 3.
    const last = seqs.at(-1) as number
    const stored = await decisions(id)
    const all = stored.map((e) => e.seq)
    expect(seqs).toEqual(all.filter((seq) => seq > 3 && seq <= last))
    // The replay reaches at least the finish, which was stored before the socket subscribed.
    expect(last).toBeGreaterThanOrEqual(stored.find((e) => e.type === 'orchestration.finished')!.seq)
    socket.send({ type: 'prompt', text: 'no' })
    const error = await socket.until((m) => m.some((x) => x.type === 'error'))
    expect(error.find((x) => x.type === 'error')).toMatchObject({ error: { code: 'INVALID_MESSAGE' } })
    socket.close()
  })

  it("a socket's messages are read under a session socket's rules: the same limits, codes and error frames", async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    await waitUntil(id, finished)
    const socket = await openSocket(`/v1/orchestrations/${id}/ws`)
    const errors = () => socket.messages.filter((x) => x.type === 'error').map((x) => (x.error as { code: string }).code)
    const cases: [string, string][] = [
      ['not json', 'INVALID_JSON'],
      [`{"type":"subscribe","after":${'['.repeat(3600)}${']'.repeat(3600)}}`, 'JSON_TOO_DEEP'],
      [JSON.stringify({ type: 'subscribe', after: 0, pad: 'x'.repeat(MAX_BODY_BYTES) }), 'PAYLOAD_TOO_LARGE'],
      [JSON.stringify({ type: 'subscribe', after: -1 }), 'INVALID_MESSAGE'],
    ]
    for (const [message, code] of cases) {
      const seen = errors().length
      socket.ws.send(message)
      await socket.until(() => errors().length > seen)
      expect(errors().at(-1)).toBe(code)
    }
    // Still usable: a subscribe after the refusals replays to the end.
    socket.send({ type: 'subscribe', after: 0 })
    await socket.until((m) => m.some((x) => x.type === 'replay-end'))
    socket.close()
  })

  it('stream headers only the worker sets are replaced on the way in: a client cannot forge a ticket', async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    await waitUntil(id, finished)
    const forged = { 'x-neuron-ticket': JSON.stringify({ jti: 'forged', exp: 9_999_999_999 }), 'x-neuron-auth-exp': '1' }
    // Twice: a forged ticket that reached the object would be spent the first time and refused the second.
    for (let i = 0; i < 2; i++) {
      const seen = await readSse(await api(`/v1/orchestrations/${id}/events`, { headers: forged }), (events) => events.some((e) => e.event === 'replay-end'))
      expect(seen.some((e) => e.event === 'orchestration.finished')).toBe(true)
    }
  })

  it('a socket lives no longer than the token it was opened with, as a session socket', async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    await waitUntil(id, finished)
    const expiresIn = 2
    const exp = Math.floor(Date.now() / 1000) + expiresIn
    const socket = await openSocket(`/v1/orchestrations/${id}/ws`, undefined, { headers: { authorization: `Bearer ${await token({ expiresIn })}` } })
    const closed = new Promise<number>((resolve) => socket.ws.addEventListener('close', (event) => resolve(event.code)))
    // Past the token's expiry (whole seconds), by the clock the object reads too.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 200))
    socket.send({ type: 'subscribe', after: 0 })
    await socket.until((m) => m.some((x) => x.type === 'error'))
    expect(socket.messages.find((x) => x.type === 'error')).toMatchObject({ error: { code: 'TOKEN_EXPIRED' } })
    expect(socket.messages.some((x) => x.type === 'event')).toBe(false)
    expect(await closed).toBe(4401)
  })

  it('streams of an orchestration the caller may not see are 404', async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    const res = await api(`/v1/orchestrations/${id}/events`, {}, 'mallory')
    expect(res.status).toBe(404)
    await waitUntil(id, finished)
  })
})
