/**
 * Prompts at the body limit, whose events spill to the artifact store: admitted
 * exactly up to 1 MiB on HTTP and WebSocket, refused one byte over with nothing
 * written, and every reader (view, history, SSE, WebSocket, the next turn) reads
 * the spilled events back, before and after the object is evicted.
 */
import { evictDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { api, events, newSession, ownerCaller, types, waitIdle } from '../support/session.ts'
import { promptBody } from '../support/prompt-body.ts'
import { openSocket, readSse } from '../support/streams.ts'

const MiB = 1024 * 1024
const encoder = new TextEncoder()
const post = (id: string, body: string) => api(`/v1/sessions/${id}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

describe('prompts at the 1 MiB body limit', () => {
  it('the limit is 1 MiB and the test bodies are exact', () => {
    expect(MAX_BODY_BYTES).toBe(MiB)
    expect(encoder.encode(promptBody(MiB - 1, { euroAt: MiB - 200 })).byteLength).toBe(MiB - 1)
  })

  it('HTTP: 1 MiB − 1 and 1 MiB are admitted (and spill); 1 MiB + 1 and a "€" across the limit are 413 with nothing written', { timeout: 90_000 }, async () => {
    const { id, stub } = await newSession('spill-http')
    expect((await post(id, promptBody(MiB - 1, { id: 'under' }))).status).toBe(202)
    expect((await post(id, promptBody(MiB, { id: 'at' }))).status).toBe(202)
    await waitIdle(id, 60_000)
    const before = (await stub.view(ownerCaller)).lastSequence

    const over = await post(id, promptBody(MiB + 1, { id: 'over' }))
    expect(over.status).toBe(413)
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE')
    // A "€" whose three bytes start one byte before the limit (the body then closes with `"}]}`).
    const straddle = await post(id, promptBody(MiB + 6, { id: 'straddle', euroAt: MiB - 1 }))
    expect(straddle.status).toBe(413)
    expect((await stub.view(ownerCaller)).lastSequence).toBe(before)

    const log = await events(id)
    const admitted = log.filter((e) => e.type === 'session.next.admitted')
    expect(admitted.map((e) => (e.payload as { messageId: string }).messageId)).toEqual(['under', 'at'])
    // The admitted events spilled, and readers still see their payloads.
    expect(admitted.every((e) => e.payloadRef !== undefined)).toBe(true)
    expect((admitted[1]!.payload as { text: string }).text).toContain('€€€')
    expect(types(log).filter((t) => t === 'step.failed' || t === 'halted')).toEqual([])
  })

  it('WebSocket: the same limit, enforced before anything is written', { timeout: 90_000 }, async () => {
    const { id, stub } = await newSession('spill-ws')
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.ws.send(promptBody(MiB - 1, { id: 'under', type: 'prompt' }))
    socket.ws.send(promptBody(MiB, { id: 'at', type: 'prompt' }))
    await socket.until((m) => m.filter((x) => x.type === 'receipt').length === 2)
    socket.ws.send(promptBody(MiB + 1, { id: 'over', type: 'prompt' }))
    socket.ws.send(promptBody(MiB + 6, { id: 'straddle', type: 'prompt', euroAt: MiB - 1 }))
    const replies = await socket.until((m) => m.filter((x) => x.type === 'error').length === 2)
    expect(replies.filter((x) => x.type === 'error').map((x) => (x.error as { code: string }).code)).toEqual(['PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE'])
    socket.close()
    await waitIdle(id, 60_000)
    const admitted = (await events(id)).filter((e) => e.type === 'session.next.admitted')
    expect(admitted.map((e) => (e.payload as { messageId: string }).messageId)).toEqual(['under', 'at'])
    expect((await stub.view(ownerCaller)).pending).toBe(0)
  })

  it('after a turn over 1 MiB, the next turn works; after eviction view, history, SSE, WebSocket and the next prompt all read it back', { timeout: 120_000 }, async () => {
    const { id, stub } = await newSession('spill-restart')
    // The local model answers `/tokens N` with N words: a turn whose text is well over 1 MiB.
    expect((await post(id, promptBody(MiB, { id: 'big', prefix: '/tokens 250000\\n' }))).status).toBe(202)
    await waitIdle(id, 60_000)
    const bigText = (await events(id)).find((e) => e.type === 'session.next.text')!
    expect(bigText.payloadRef).toBeDefined()
    expect((bigText.payload as { text: string }).text.length).toBeGreaterThan(300_000)

    expect((await post(id, JSON.stringify({ id: 'small', text: 'still alive?' }))).status).toBe(202)
    await waitIdle(id, 60_000)
    let log = await events(id)
    expect(types(log).filter((t) => t === 'step.failed' || t === 'halted')).toEqual([])
    expect(log.filter((e) => e.type === 'session.next.text').at(-1)!.payload).toMatchObject({ text: expect.stringContaining('still alive?') })

    await evictDurableObject(stub)
    const view = await api(`/v1/sessions/${id}`)
    expect(view.status).toBe(200)
    const history = await api(`/v1/sessions/${id}/history?limit=1000`)
    expect(history.status).toBe(200)
    const items = ((await history.json()) as { items: { type: string; payload: { text?: string } }[] }).items
    expect(items.find((e) => e.type === 'session.next.admitted')!.payload.text).toContain('€')

    const sse = await readSse(await api(`/v1/sessions/${id}/events`), (got) => got.some((e) => e.event === 'replay-end'), 30_000)
    const sseAdmitted = sse.find((e) => e.event === 'session.next.admitted')!
    expect((JSON.parse(sseAdmitted.data) as { payload: { text: string } }).payload.text).toContain('€')

    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.send({ type: 'subscribe', after: 0 })
    const frames = await socket.until((m) => m.some((x) => x.type === 'replay-end'), 30_000)
    const wsAdmitted = frames.find((x) => x.type === 'event' && (x.event as { type: string }).type === 'session.next.admitted')!
    expect((wsAdmitted.event as { payload: { text: string } }).payload.text).toContain('€')
    socket.close()

    expect((await post(id, JSON.stringify({ id: 'after', text: 'after eviction' }))).status).toBe(202)
    await waitIdle(id, 60_000)
    log = await events(id)
    expect(log.filter((e) => e.type === 'session.next.text').at(-1)!.payload).toMatchObject({ text: expect.stringContaining('after eviction') })
    expect(types(log).filter((t) => t === 'step.failed' || t === 'halted')).toEqual([])
  })
})
