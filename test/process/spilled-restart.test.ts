/**
 * A session whose prompts and turns spill past 1 MiB survives a restart of the
 * real `wrangler dev` process: view, /history, SSE and WebSocket replay read
 * every spilled event back, and the next prompt gets its answer.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { promptBody } from '../support/prompt-body.ts'
import { Restartable, until } from '../support/restartable.ts'

const MiB = 1024 * 1024
type Event = { seq: number; type: string; payload: { messageId?: string; text?: string }; payloadRef?: unknown }

describe('spilled payloads across a process restart (real wrangler dev)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())

  const prompt = (id: string, body: string) => server.post(`/v1/sessions/${id}/prompt`, body)
  const history = (id: string) => server.history<Event>(id)
  const idle = (id: string) => until(async () => (await server.get<{ status: string }>(`/v1/sessions/${id}`)).status === 'idle', `session ${id} to be idle`, 90_000, 200)
  function socket(id: string) {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/sessions/${id}/ws`, { headers: server.auth } as never)
    const messages: Record<string, unknown>[] = []
    ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))))
    const opened = new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve)
      ws.addEventListener('error', reject)
    })
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 60_000
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`WebSocket: got ${JSON.stringify(messages.map((m) => m.type))}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    return { ws, messages, opened, until }
  }

  it('prompts at 1 MiB on HTTP and WebSocket, a turn over 1 MiB, then restart: everything reads back and the next prompt works', async () => {
    await server.start()
    expect((await server.post('/v1/sessions', { id: 'spilly' })).status).toBe(201)
    expect((await prompt('spilly', promptBody(MiB, { id: 'http-big', prefix: '/tokens 250000\\n' }))).status).toBe(202)
    expect((await prompt('spilly', promptBody(MiB + 1, { id: 'http-over' }))).status).toBe(413)
    await idle('spilly')

    const ws = socket('spilly')
    await ws.opened
    ws.ws.send(promptBody(MiB, { id: 'ws-big', type: 'prompt' }))
    ws.ws.send(promptBody(MiB + 1, { id: 'ws-over', type: 'prompt' }))
    await ws.until(() => ws.messages.some((m) => m.type === 'receipt') && ws.messages.some((m) => m.type === 'error'))
    expect((ws.messages.find((m) => m.type === 'error')!.error as { code: string }).code).toBe('PAYLOAD_TOO_LARGE')
    ws.ws.close()
    await idle('spilly')
    const before = await history('spilly')

    await server.stop()
    await server.start()

    const view = await server.fetch('/v1/sessions/spilly')
    expect(view.status).toBe(200)
    const after = await history('spilly')
    expect(after.map((e) => e.seq)).toEqual(before.map((e) => e.seq))
    const admitted = after.filter((e) => e.type === 'session.next.admitted')
    expect(admitted.map((e) => e.payload.messageId)).toEqual(['http-big', 'ws-big'])
    expect(admitted.every((e) => e.payloadRef !== undefined && e.payload.text!.includes('€€€'))).toBe(true)
    const bigTurn = after.find((e) => e.type === 'session.next.text' && e.payloadRef !== undefined)
    expect(bigTurn?.payload.text!.length).toBeGreaterThan(MiB)
    expect(after.filter((e) => e.type === 'session.next.step.failed' || e.type === 'session.next.halted')).toEqual([])

    // SSE replay carries the spilled payloads.
    const sse = await server.fetch('/v1/sessions/spilly/events')
    const reader = sse.body!.getReader()
    let text = ''
    while (!text.includes('event: replay-end')) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value, { stream: true })
    }
    await reader.cancel()
    const sseAdmitted = text.split('\n\n').filter((frame) => frame.includes('event: session.next.admitted'))
    expect(sseAdmitted).toHaveLength(2)
    expect(sseAdmitted.every((frame) => frame.includes('€€€'))).toBe(true)

    // WebSocket replay too, and the next prompt is answered.
    const replay = socket('spilly')
    await replay.opened
    replay.ws.send(JSON.stringify({ type: 'subscribe', after: 0 }))
    await replay.until(() => replay.messages.some((m) => m.type === 'replay-end'))
    const wsAdmitted = replay.messages.filter((m) => m.type === 'event' && (m.event as Event).type === 'session.next.admitted')
    expect(wsAdmitted.map((m) => (m.event as Event).payload.text!.includes('€€€'))).toEqual([true, true])
    replay.ws.close()

    expect((await prompt('spilly', JSON.stringify({ id: 'after', text: 'after the restart' }))).status).toBe(202)
    await idle('spilly')
    const last = (await history('spilly')).filter((e) => e.type === 'session.next.text').at(-1)!
    expect(last.payload.text).toContain('after the restart')
  })
})
