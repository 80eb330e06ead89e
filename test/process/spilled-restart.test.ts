/**
 * A session whose prompts and turns spill past 1 MiB survives a restart of the
 * real `wrangler dev` process: view, /history, SSE and WebSocket replay read
 * every spilled event back, and the next prompt gets its answer.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { promptBody } from '../support/prompt-body.ts'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

const MiB = 1024 * 1024
type Event = { seq: number; type: string; payload: { messageId?: string; text?: string }; payloadRef?: unknown }

describe('spilled payloads across a process restart (real wrangler dev)', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  let auth: Record<string, string> = {}
  afterAll(async () => dev?.stop())

  const prompt = (id: string, body: string) => fetch(`${dev!.url}/v1/sessions/${id}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body })
  async function history(id: string): Promise<Event[]> {
    const all: Event[] = []
    let after = 0
    for (;;) {
      const res = await fetch(`${dev!.url}/v1/sessions/${id}/history?after=${after}&limit=1000`, { headers: auth })
      expect(res.status).toBe(200)
      const page = (await res.json()) as { items: Event[]; next: number | null }
      all.push(...page.items)
      if (page.next === null) return all
      after = page.next
    }
  }
  async function idle(id: string) {
    const deadline = Date.now() + 90_000
    for (;;) {
      const view = (await (await fetch(`${dev!.url}/v1/sessions/${id}`, { headers: auth })).json()) as { status: string }
      if (view.status === 'idle') return
      if (Date.now() > deadline) throw new Error(`session ${id} still busy`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  function socket(id: string) {
    const ws = new WebSocket(`${dev!.url.replace('http', 'ws')}/v1/sessions/${id}/ws`, { headers: auth } as never)
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
    dev = await startWrangler({ persistTo })
    auth = { authorization: `Bearer ${await devToken()}` }
    expect((await fetch(`${dev.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{"id":"spilly"}' })).status).toBe(201)
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

    await dev.stop()
    dev = await startWrangler({ persistTo })

    const view = await fetch(`${dev.url}/v1/sessions/spilly`, { headers: auth })
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
    const sse = await fetch(`${dev.url}/v1/sessions/spilly/events`, { headers: auth })
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
