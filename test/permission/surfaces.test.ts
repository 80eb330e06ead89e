/**
 * Approvals answered on the session's surfaces, in workerd: a browser host's tool (which asks by
 * default) called by the local model is parked with a durable request, listed over HTTP, and
 * answered over HTTP or over the session's WebSocket (`permission.answer`). Only the owner
 * answers; a refused answer writes nothing.
 */
import { describe, expect, it } from 'vitest'
import { events, newSession, postJson, waitFor, waitIdle } from '../support/session.ts'
import { api } from '../support/api.ts'
import { openSocket } from '../support/streams.ts'
import { NOTES_SEARCH } from '../support/host.ts'

type Socket = Awaited<ReturnType<typeof openSocket>>

/** A session with a host socket offering `notes_search`, and a prompt calling it, parked on its request. */
async function parked(prefix: string) {
  const { id } = await newSession(prefix)
  // Host tools run unasked by default (their host asks its person); this session's rule makes them ask.
  const rule = await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permission: { rules: [{ source: 'host:*', action: 'ask' }] } }) })
  expect(rule.status).toBe(200)
  const host = await openSocket(`/v1/sessions/${id}/ws`)
  host.send({ type: 'host.offer', host: 'notes', tools: [NOTES_SEARCH] })
  await host.until((m) => m.some((x) => x.type === 'host.offered'))
  expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool notes_search {"q":"milk"}' })).status).toBe(202)
  const requested = await waitFor(id, 'session.next.permission.requested')
  return { id, host, toolCallId: (requested.payload as { toolCallId: string }).toolCallId }
}

/** Answers the host's call once it arrives (after the approval). */
async function serve(host: Socket, content: string) {
  const messages = await host.until((m) => m.some((x) => x.type === 'host.call'))
  const call = messages.find((x) => x.type === 'host.call')!
  host.send({ type: 'host.result', call: call.call, ok: true, content })
}

describe('approvals over HTTP and the WebSocket', () => {
  it('lists the pending request, refuses a bad or unknown answer writing nothing, then the owner approves over HTTP and the call runs', { timeout: 60_000 }, async () => {
    const { id, host, toolCallId } = await parked('perm-http')
    const listed = (await (await api(`/v1/sessions/${id}/permissions`)).json()) as { items: { toolCallId: string; tool: string; source: string; input: unknown }[] }
    expect(listed.items).toEqual([expect.objectContaining({ toolCallId, tool: 'notes_search', source: 'host:notes', input: { q: 'milk' } })])
    expect(host.messages.some((m) => m.type === 'host.call')).toBe(false)
    const before = (await events(id)).length
    const bad = await postJson(`/v1/sessions/${id}/permissions`, { toolCallId, reply: 'sometimes' })
    expect(bad.status).toBe(400)
    const unknown = await postJson(`/v1/sessions/${id}/permissions`, { toolCallId: 'no-such-call', reply: 'once' })
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('PERMISSION_UNKNOWN')
    expect(await events(id)).toHaveLength(before)
    const served = serve(host, 'milk: 2 notes')
    const ok = await postJson(`/v1/sessions/${id}/permissions`, { toolCallId, reply: 'once' })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ toolCallId, reply: 'once', rules: [], duplicate: false })
    await served
    await waitIdle(id)
    const again = await postJson(`/v1/sessions/${id}/permissions`, { toolCallId, reply: 'once' })
    expect(await again.json()).toMatchObject({ duplicate: true })
    const log = await events(id)
    expect(log.filter((e) => e.type === 'session.next.tool.succeeded').map((e) => (e.payload as { content: string }).content)).toEqual(['milk: 2 notes'])
    expect(log.filter((e) => e.type === 'session.next.permission.answered')).toHaveLength(1)
    host.close()
  })

  it('the owner answers always over the WebSocket: the rule lands in the session config and the next call does not ask', { timeout: 60_000 }, async () => {
    const { id, host, toolCallId } = await parked('perm-ws')
    const served = serve(host, 'first')
    host.send({ type: 'permission.answer', toolCallId, reply: 'always' })
    const reply = (await host.until((m) => m.some((x) => x.type === 'permission.answered'))).find((x) => x.type === 'permission.answered')
    expect(reply).toEqual({ type: 'permission.answered', toolCallId, reply: 'always', rules: [{ tool: 'notes_search', action: 'allow' }], duplicate: false })
    await served
    await waitIdle(id)
    const config = (await (await api(`/v1/sessions/${id}/config`)).json()) as { document: { permission?: { rules: unknown[] } } }
    expect(config.document.permission?.rules).toEqual([{ source: 'host:*', action: 'ask' }, { tool: 'notes_search', action: 'allow' }])
    // The next call runs without a request.
    const calls = host.messages.filter((m) => m.type === 'host.call').length
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool notes_search {"q":"eggs"}' })).status).toBe(202)
    const second = await host.until((m) => m.filter((x) => x.type === 'host.call').length > calls)
    const call = second.filter((x) => x.type === 'host.call').at(-1)!
    host.send({ type: 'host.result', call: call.call, ok: true, content: 'second' })
    await waitIdle(id)
    expect((await events(id)).filter((e) => e.type === 'session.next.permission.requested')).toHaveLength(1)
    // A different answer to the settled request over the socket is an error frame, and writes nothing.
    const before = (await events(id)).length
    host.send({ type: 'permission.answer', toolCallId, reply: 'reject' })
    const error = (await host.until((m) => m.some((x) => x.type === 'error'))).find((x) => x.type === 'error')
    expect(JSON.stringify(error)).toContain('PERMISSION_SETTLED')
    expect(await events(id)).toHaveLength(before)
    host.close()
  })
})
