/**
 * Host tools inside workerd, through the real gate: the registry's overlay
 * rule across two sockets, the turn's offered-tool record, the bound on
 * offering sockets, an offer that survives the object's eviction while its
 * socket stays open (hibernation), and a stopped object's open-call marker
 * turning into `host.cancel` for the socket that survived.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { newSession as created, ownerCaller, postJson, waitIdle, events } from '../support/session.ts'
import { api } from '../support/api.ts'
import { allowSource } from '../support/permission.ts'
import { openSocket } from '../support/streams.ts'
import { NOTES_SEARCH } from '../support/host.ts'
import { MAX_HOST_SOCKETS } from '../../objects/core/limits.ts'

type Socket = Awaited<ReturnType<typeof openSocket>>
type Message = Record<string, unknown>

const calls = (socket: Socket) => socket.messages.filter((m) => m.type === 'host.call')

/** A session whose config allows host tools without asking (the approval flow is tested in test/permission/). */
async function newSession(prefix: string) {
  const session = await created(prefix)
  const put = await api(`/v1/sessions/${session.id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(allowSource('host:*')) })
  expect(put.status).toBe(200)
  return session
}

async function offer(socket: Socket, host: string) {
  socket.send({ type: 'host.offer', host, tools: [NOTES_SEARCH] })
  return (await socket.until((m) => m.some((x) => x.type === 'host.offered'))).find((x) => x.type === 'host.offered')!
}

/** Prompts a `/tool notes_search` call and answers it from whichever socket receives it. */
async function callAndAnswer(id: string, sockets: Socket[], content: (socket: number) => string) {
  const before = sockets.map((s) => calls(s).length)
  expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool notes_search {"q":"milk"}' })).status).toBe(202)
  const deadline = Date.now() + 20_000
  for (;;) {
    const index = sockets.findIndex((s, i) => calls(s).length > before[i]!)
    if (index >= 0) {
      const call = calls(sockets[index]!).at(-1)! as Message
      sockets[index]!.send({ type: 'host.result', call: call.call, ok: true, content: content(index) })
      await waitIdle(id)
      return index
    }
    if (Date.now() > deadline) throw new Error('no host.call arrived')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('host tools in workerd', () => {
  it('the later offer of a name shadows the earlier; closing it reveals the earlier', { timeout: 120_000 }, async () => {
    const { id } = await newSession('host-shadow')
    const first = await openSocket(`/v1/sessions/${id}/ws`)
    const second = await openSocket(`/v1/sessions/${id}/ws`)
    await offer(first, 'notes-a')
    await offer(second, 'notes-b')
    expect(await callAndAnswer(id, [first, second], (i) => `from ${i}`)).toBe(1)
    second.close()
    // The close reaches the object asynchronously; the next turn is offered the earlier registration.
    let answered = -1
    for (let attempt = 0; attempt < 20 && answered !== 0; attempt++) {
      answered = await callAndAnswer(id, [first, second], (i) => `from ${i}`).catch(() => -1)
    }
    expect(answered).toBe(0)
    const succeeded = (await events(id)).filter((e) => e.type === 'session.next.tool.succeeded').map((e) => (e.payload as { content: string }).content)
    expect(succeeded[0]).toBe('from 1')
    expect(succeeded.at(-1)).toBe('from 0')
    first.close()
  })

  it("the turn's offered-tool record lists the host tool while its socket is open, and not after", { timeout: 60_000 }, async () => {
    const { id, stub } = await newSession('host-offered')
    const host = await openSocket(`/v1/sessions/${id}/ws`)
    await offer(host, 'notes')
    await callAndAnswer(id, [host], () => 'ok')
    host.close()
    await new Promise((r) => setTimeout(r, 200))
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'no host now' })
    await waitIdle(id)
    const steps = (await events(id)).filter((e) => e.type === 'session.next.step.started').map((e) => (e.payload as { tools: string }).tools)
    const specsOf = async (ref: string) => JSON.parse(new TextDecoder().decode((await stub.readArtifact(ownerCaller, ref)).bytes)) as { name: string; inputSchema: unknown }[]
    const withHost = await specsOf(steps[0]!)
    expect(withHost.find((t) => t.name === 'notes_search')).toEqual({ name: 'notes_search', description: NOTES_SEARCH.description, inputSchema: NOTES_SEARCH.inputSchema })
    expect((await specsOf(steps.at(-1)!)).some((t) => t.name === 'notes_search')).toBe(false)
  })

  it('an offer survives eviction while its socket stays open: the woken object sends the next call to it', { timeout: 60_000 }, async () => {
    const { id, stub } = await newSession('host-hibernate')
    const host = await openSocket(`/v1/sessions/${id}/ws`)
    await offer(host, 'notes')
    await evictDurableObject(stub)
    expect(await callAndAnswer(id, [host], () => 'after eviction')).toBe(0)
    const log = await events(id)
    expect(log.find((e) => e.type === 'session.next.tool.succeeded')!.payload).toMatchObject({ content: 'after eviction' })
    host.close()
  })

  it('at most MAX_HOST_SOCKETS sockets hold an offer at once: one more is HOST_SOCKETS_FULL until one withdraws', { timeout: 60_000 }, async () => {
    const { id } = await newSession('host-sockets')
    const sockets = await Promise.all(Array.from({ length: MAX_HOST_SOCKETS + 1 }, () => openSocket(`/v1/sessions/${id}/ws`)))
    for (const socket of sockets.slice(0, MAX_HOST_SOCKETS)) await offer(socket, 'notes')
    const extra = sockets.at(-1)!
    extra.send({ type: 'host.offer', host: 'notes', tools: [NOTES_SEARCH] })
    const refused = (await extra.until((m) => m.some((x) => x.type === 'error'))).find((x) => x.type === 'error')!
    expect(refused.error).toMatchObject({ code: 'HOST_SOCKETS_FULL', details: { maxSockets: MAX_HOST_SOCKETS } })
    // An empty offer withdraws; then the extra socket may offer.
    sockets[0]!.send({ type: 'host.offer', host: 'notes', tools: [] })
    await sockets[0]!.until((m) => m.filter((x) => x.type === 'host.offered').length === 2)
    expect(await offer(extra, 'notes')).toMatchObject({ tools: ['notes_search'], refused: [] })
    for (const socket of sockets) socket.close()
  })

  it("a call marker left by a stopped object: on wake the call's surviving socket gets host.cancel and the marker is gone", { timeout: 60_000 }, async () => {
    // A runner awaiting a host cannot be evicted in the pool, so the marker it would leave is planted.
    const { id, stub } = await newSession('host-stale-call')
    const host = await openSocket(`/v1/sessions/${id}/ws`)
    await offer(host, 'notes')
    await runInDurableObject(stub, (_object, ctx) => {
      const socket = (ctx.getWebSockets()[0]!.deserializeAttachment() as { socket: string }).socket
      ctx.storage.kv.put('host-call:call_stale', socket)
    })
    await evictDurableObject(stub)
    await stub.view(ownerCaller)
    const cancel = (await host.until((m) => m.some((x) => x.type === 'host.cancel'))).find((x) => x.type === 'host.cancel')!
    expect(cancel).toMatchObject({ call: 'call_stale', reason: 'the session restarted' })
    expect(await runInDurableObject(stub, (_object, ctx) => [...ctx.storage.kv.list({ prefix: 'host-call:' })].length)).toBe(0)
    // The offer itself survived: the next call still reaches this socket.
    expect(await callAndAnswer(id, [host], () => 'still here')).toBe(0)
    host.close()
  })
})
