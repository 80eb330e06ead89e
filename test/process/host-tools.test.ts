/**
 * Host tools end to end against a real `wrangler dev`: a Node WebSocket client
 * plays the browser host (docs/host-tools.md). The host-call timeout is set
 * short (HOST_CALL_TIMEOUT_MS) so the timeout case runs in seconds; every other
 * host answers at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Host, NOTES_SEARCH, openHost } from '../support/host.ts'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

type Event = { seq: number; type: string; payload: Record<string, unknown> }

const TIMEOUT_MS = 3000
const persistTo = tempPersistDir()
let dev: Wrangler
let auth: Record<string, string>
const start = () => startWrangler({ persistTo, vars: { HOST_CALL_TIMEOUT_MS: String(TIMEOUT_MS) } })

beforeAll(async () => {
  dev = await start()
  auth = { authorization: `Bearer ${await devToken('ada')}` }
})
afterAll(async () => dev?.stop())

const post = (path: string, body: unknown, headers = auth) =>
  fetch(`${dev.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
const history = async (id: string): Promise<Event[]> =>
  ((await (await fetch(`${dev.url}/v1/sessions/${id}/history?limit=1000`, { headers: auth })).json()) as { items: Event[] }).items
const short = (log: Event[]) => log.map((e) => e.type.replace('session.next.', ''))

async function session(id: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await post('/v1/sessions', { id, ...extra })
  expect(res.status).toBe(201)
}

/** Waits until the session's drain after `prompt` is over and returns its history. */
async function settledHistory(id: string, timeoutMs = 30_000): Promise<Event[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const view = (await (await fetch(`${dev.url}/v1/sessions/${id}`, { headers: auth })).json()) as { status: string; pending: number }
    if (view.status === 'idle' && view.pending === 0) {
      const log = await history(id)
      if (log.at(-1)?.type === 'session.next.drain.ended') return log
    }
    if (Date.now() > deadline) throw new Error(`session ${id} did not settle: ${JSON.stringify(view)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function offerNotes(host: Host, extra: unknown[] = []) {
  host.send({ type: 'host.offer', host: 'notes', tools: [NOTES_SEARCH, ...extra] })
  return host.next((m) => m.type === 'host.offered')
}

const failureOf = (log: Event[]) => log.find((e) => e.type === 'session.next.tool.failed')?.payload.error as { code: string } | undefined

describe('host tools (real wrangler dev, a Node host)', () => {
  it('offer → /tool → host.call → progress → host.result: settled durably; a bad schema is refused alone', async () => {
    await session('host-ok')
    const host = await openHost(dev.url, 'host-ok', auth)
    host.send({ type: 'subscribe', after: 0 })
    const offered = await offerNotes(host, [
      { name: 'broken', description: 'a $ref that leaves the schema', inputSchema: { type: 'object', properties: { q: { $ref: 'https://elsewhere.example/q.json' } } } },
      { name: 'bad name!', description: 'x', inputSchema: { type: 'object' } },
    ])
    expect(offered.tools).toEqual(['notes_search'])
    expect((offered.refused as { name: string; code: string }[]).map((r) => [r.name, r.code])).toEqual([
      ['broken', 'INVALID_SCHEMA'],
      ['bad name!', 'INVALID_TOOL_NAME'],
    ])

    expect((await post('/v1/sessions/host-ok/prompt', { text: '/tool notes_search {"q":"milk"}' })).status).toBe(202)
    const call = await host.next((m) => m.type === 'host.call')
    expect(call).toMatchObject({ name: 'notes_search', input: { q: 'milk' } })
    // The call was recorded before it reached the host.
    const recorded = (await history('host-ok')).find((e) => e.type === 'session.next.tool.called')!
    expect(recorded.payload).toMatchObject({ toolCallId: call.call, name: 'notes_search', input: { q: 'milk' } })

    host.send({ type: 'host.progress', call: call.call, progress: { searched: 10 } })
    const progress = await host.next((m) => m.type === 'delta' && (m.delta as { type: string }).type === 'tool-progress')
    expect(progress.delta).toMatchObject({ toolCallId: call.call, progress: { searched: 10 } })
    host.send({ type: 'host.result', call: call.call, ok: true, content: '1 note: buy milk' })

    const log = await settledHistory('host-ok')
    expect(log.find((e) => e.type === 'session.next.tool.succeeded')!.payload).toMatchObject({ toolCallId: call.call, content: '1 note: buy milk', truncated: false })
    // Progress is air: nothing of it is stored.
    expect(JSON.stringify(log)).not.toContain('searched')
    expect(host.messages.filter((m) => m.type === 'host.call')).toHaveLength(1)
    await host.close()
  })

  it('with no host connected the tool is not offered: TOOL_NOT_FOUND, durably', async () => {
    await session('host-none')
    const host = await openHost(dev.url, 'host-none', auth)
    await offerNotes(host)
    await host.close()
    await post('/v1/sessions/host-none/prompt', { text: '/tool notes_search {"q":"milk"}' })
    const log = await settledHistory('host-none')
    expect(failureOf(log)).toMatchObject({ code: 'TOOL_NOT_FOUND' })
  })

  it('a socket dropped mid-call fails the call HOST_GONE durably; a host that reconnects never gets it again', async () => {
    await session('host-drop')
    const first = await openHost(dev.url, 'host-drop', auth)
    await offerNotes(first)
    await post('/v1/sessions/host-drop/prompt', { text: '/tool notes_search {"q":"milk"}' })
    await first.next((m) => m.type === 'host.call')
    await first.close()
    const second = await openHost(dev.url, 'host-drop', auth)
    await offerNotes(second)
    const log = await settledHistory('host-drop')
    expect(failureOf(log)).toMatchObject({ code: 'HOST_GONE' })
    expect(short(log).filter((t) => t === 'tool.called')).toHaveLength(1)
    // A later turn reaches the new host; the dropped call is not among its calls.
    await post('/v1/sessions/host-drop/prompt', { text: 'thanks' })
    await settledHistory('host-drop')
    expect(second.messages.filter((m) => m.type === 'host.call')).toEqual([])
    await second.close()
  })

  it('a host that does not answer gets host.cancel and the call fails HOST_TIMEOUT; its late answer is refused', async () => {
    await session('host-slow')
    const host = await openHost(dev.url, 'host-slow', auth)
    await offerNotes(host)
    await post('/v1/sessions/host-slow/prompt', { text: '/tool notes_search {"q":"milk"}' })
    const call = await host.next((m) => m.type === 'host.call')
    const cancel = await host.next((m) => m.type === 'host.cancel', TIMEOUT_MS + 20_000)
    expect(cancel).toMatchObject({ call: call.call, reason: expect.stringContaining('no answer') })
    const log = await settledHistory('host-slow')
    expect(failureOf(log)).toMatchObject({ code: 'HOST_TIMEOUT' })
    host.send({ type: 'host.result', call: call.call, ok: true, content: 'too late' })
    const refused = await host.next((m) => m.type === 'error')
    expect(refused.error).toMatchObject({ code: 'HOST_CALL_UNKNOWN' })
    expect(JSON.stringify(await history('host-slow'))).not.toContain('too late')
    await host.close()
  })

  it('an interrupt sends host.cancel and cancels the call (never a result)', async () => {
    await session('host-stop')
    const host = await openHost(dev.url, 'host-stop', auth)
    await offerNotes(host)
    await post('/v1/sessions/host-stop/prompt', { text: '/tool notes_search {"q":"milk"}' })
    const call = await host.next((m) => m.type === 'host.call')
    expect((await post('/v1/sessions/host-stop/interrupt', {})).status).toBe(200)
    const cancel = await host.next((m) => m.type === 'host.cancel')
    expect(cancel.call).toBe(call.call)
    const log = await settledHistory('host-stop')
    expect(short(log)).toContain('tool.cancelled')
    expect(short(log)).not.toContain('tool.succeeded')
    await host.close()
  })

  it('forged results (unknown call, another socket) are refused and change nothing; the holder still answers', async () => {
    await session('host-forge')
    const holder = await openHost(dev.url, 'host-forge', auth)
    const other = await openHost(dev.url, 'host-forge', auth)
    await offerNotes(holder)
    other.send({ type: 'host.result', call: 'no-such-call', ok: true, content: 'forged' })
    expect((await other.next((m) => m.type === 'error')).error).toMatchObject({ code: 'HOST_CALL_UNKNOWN' })
    await post('/v1/sessions/host-forge/prompt', { text: '/tool notes_search {"q":"milk"}' })
    const call = await holder.next((m) => m.type === 'host.call')
    other.send({ type: 'host.result', call: call.call, ok: true, content: 'forged' })
    other.send({ type: 'host.progress', call: call.call, progress: { forged: true } })
    await other.next((m) => other.messages.filter((x) => x.type === 'error').length === 3 && m.type === 'error')
    expect(other.messages.filter((m) => m.type === 'error').map((m) => (m.error as { code: string }).code)).toEqual(['HOST_CALL_UNKNOWN', 'HOST_CALL_UNKNOWN', 'HOST_CALL_UNKNOWN'])
    holder.send({ type: 'host.result', call: call.call, ok: false, error: { code: 'NOTES_LOCKED', message: 'the notebook is locked' } })
    const log = await settledHistory('host-forge')
    expect(failureOf(log)).toMatchObject({ code: 'NOTES_LOCKED', message: 'the notebook is locked' })
    expect(JSON.stringify(log)).not.toContain('forged')
    await holder.close()
    await other.close()
  })

  it("an offer from anyone but the session's owner is refused", async () => {
    await session('host-shared', { share: ['org:acme'] })
    const bob = { authorization: `Bearer ${await devToken('bob', ['org:acme'])}` }
    const host = await openHost(dev.url, 'host-shared', bob)
    host.send({ type: 'host.offer', host: 'notes', tools: [NOTES_SEARCH] })
    expect((await host.next((m) => m.type === 'error')).error).toMatchObject({ code: 'HOST_OWNER_ONLY' })
    expect(host.messages.some((m) => m.type === 'host.offered')).toBe(false)
    await post('/v1/sessions/host-shared/prompt', { text: '/tool notes_search {"q":"milk"}' })
    expect(failureOf(await settledHistory('host-shared'))).toMatchObject({ code: 'TOOL_NOT_FOUND' })
    await host.close()
  })

  it('a restart while a host holds a call: HOST_GONE (not ABANDONED), the stale offer is gone, a new offer works', async () => {
    await session('host-crash')
    const host = await openHost(dev.url, 'host-crash', auth)
    await offerNotes(host)
    await post('/v1/sessions/host-crash/prompt', { text: '/tool notes_search {"q":"milk"}' })
    await host.next((m) => m.type === 'host.call')
    await dev.crash()
    await host.closed
    dev = await start()

    let log = await settledHistory('host-crash', 60_000)
    expect(failureOf(log)).toMatchObject({ code: 'HOST_GONE' })
    expect(short(log).filter((t) => t === 'tool.called')).toHaveLength(1)
    // The offer died with its socket: a reconnected host that has not offered yet is offered nothing.
    const again = await openHost(dev.url, 'host-crash', auth)
    await post('/v1/sessions/host-crash/prompt', { id: 'before-offer', text: '/tool notes_search {"q":"eggs"}' })
    log = await settledHistory('host-crash')
    expect(failureOf(log.slice(log.findIndex((e) => e.payload.messageId === 'before-offer')))).toMatchObject({ code: 'TOOL_NOT_FOUND' })
    await offerNotes(again)
    await post('/v1/sessions/host-crash/prompt', { id: 'after-offer', text: '/tool notes_search {"q":"eggs"}' })
    const call = await again.next((m) => m.type === 'host.call')
    again.send({ type: 'host.result', call: call.call, ok: true, content: 'no eggs' })
    log = await settledHistory('host-crash')
    expect(log.at(-1)!.type).toBe('session.next.drain.ended')
    expect(log.filter((e) => e.type === 'session.next.tool.succeeded').map((e) => e.payload.content)).toEqual(['no eggs'])
    expect(again.messages.filter((m) => m.type === 'host.call')).toHaveLength(1)
    await again.close()
  })
})
