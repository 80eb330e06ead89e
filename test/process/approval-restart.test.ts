/**
 * A parked approval across a `kill -9` of a real `wrangler dev` (docs/approvals.md): the request is
 * a fold over the session's events, so after the restart it is still pending over HTTP, and an
 * answer then runs the call, once; a request nobody answers expires `PERMISSION_TIMEOUT` after the
 * restart, on the object's own durable timer (its alarm), with no request to wake it.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type Event, Restartable, until } from '../support/restartable.ts'

type Pending = { items: { toolCallId: string; tool: string; subjects: string[]; expiresAt: number }[] }

describe('a pending approval survives kill -9 (real wrangler dev)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())
  const write = (path: string) => `/tool write ${JSON.stringify({ path, content: `${path} written\n` })}`
  const requested = (id: string) => until(async () => (await server.history(id)).find((e) => e.type === 'session.next.permission.requested'), `${id}'s permission request`)
  const outcome = (log: Event[]) => log.find((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
  const file = async (id: string, path: string) => {
    const res = await server.fetch(`/v1/sessions/${id}/workspace/file?path=${encodeURIComponent(path)}`)
    return res.status === 200 ? res.text() : res.status
  }

  it('answered after the restart, the parked call runs once; unanswered, it expires PERMISSION_TIMEOUT on its timer', { timeout: 240_000 }, async () => {
    await server.start()
    for (const id of ['parked', 'lapsed']) expect((await server.post('/v1/sessions', { id })).status).toBe(201)
    // The shortest wait a config may set, so the request lapses while the server is down or just after.
    const config = await server.fetch('/v1/sessions/lapsed/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permission: { askTimeoutSeconds: 10 } }) })
    expect(config.status).toBe(200)
    expect((await server.post('/v1/sessions/parked/prompt', { id: 'm1', text: write('kept.txt') })).status).toBe(202)
    expect((await server.post('/v1/sessions/lapsed/prompt', { id: 'm1', text: write('never.txt') })).status).toBe(202)
    const parked = (await requested('parked')).payload as { toolCallId: string }
    const lapsed = (await requested('lapsed')).payload as { toolCallId: string; expiresAt: number }

    await server.crash()
    await server.start()

    // Nothing touches `lapsed` until well after its request is due: its alarm must settle it alone.
    const pending = await server.get<Pending>('/v1/sessions/parked/permissions')
    expect(pending.items).toMatchObject([{ toolCallId: parked.toolCallId, tool: 'write', subjects: ['kept.txt'] }])
    expect(await file('parked', 'kept.txt')).toBe(404)
    const answer = await server.post('/v1/sessions/parked/permissions', { toolCallId: parked.toolCallId, reply: 'once' })
    expect(answer.status).toBe(200)
    await until(async () => (await server.get<{ status: string }>('/v1/sessions/parked')).status === 'idle', 'parked to finish')
    const log = await server.history('parked')
    expect(outcome(log)).toMatchObject({ type: 'session.next.tool.succeeded', payload: { toolCallId: parked.toolCallId } })
    expect(log.filter((e) => e.type === 'session.next.permission.requested')).toHaveLength(1)
    expect(log.filter((e) => e.type === 'session.next.tool.succeeded')).toHaveLength(1)
    expect(await file('parked', 'kept.txt')).toBe('kept.txt written\n')
    expect((await server.get<Pending>('/v1/sessions/parked/permissions')).items).toEqual([])

    await new Promise((r) => setTimeout(r, Math.max(0, lapsed.expiresAt - Date.now()) + 15_000))
    const firstLook = Date.now()
    const settled = await until(async () => {
      const events = await server.history<Event & { time: number }>('lapsed')
      return events.some((e) => e.type === 'session.next.permission.expired') && (await server.get<{ status: string }>('/v1/sessions/lapsed')).status === 'idle' ? events : undefined
    }, 'lapsed to expire')
    const expired = settled.find((e) => e.type === 'session.next.permission.expired')!
    expect(expired.payload).toMatchObject({ toolCallId: lapsed.toolCallId })
    // Recorded before anyone asked the restarted server about this session.
    expect(expired.time).toBeLessThan(firstLook)
    expect(expired.time).toBeGreaterThanOrEqual(lapsed.expiresAt)
    expect(outcome(settled)).toMatchObject({ type: 'session.next.tool.failed', payload: { toolCallId: lapsed.toolCallId, error: { code: 'PERMISSION_TIMEOUT' } } })
    expect(await file('lapsed', 'never.txt')).toBe(404)
    expect((await server.get<Pending>('/v1/sessions/lapsed/permissions')).items).toEqual([])
  })
})
