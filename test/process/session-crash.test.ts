import { afterAll, describe, expect, it } from 'vitest'
import { Restartable, until } from '../support/restartable.ts'

describe('session crash mid-tool (real wrangler dev, kill -9)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())

  it('fails the running call durably, keeps admitted prompts, and finishes the drain after restart', async () => {
    await server.start()
    expect((await server.post('/v1/sessions', { id: 'crashy' })).status).toBe(201)
    expect((await server.post('/v1/sessions/crashy/prompt', { id: 'slow', text: '/tool wait {"ms":60000}' })).status).toBe(202)
    await until(async () => (await server.history('crashy')).some((e) => e.type === 'session.next.tool.called'), 'the slow call to start')
    expect((await server.post('/v1/sessions/crashy/prompt', { id: 'next', text: 'after the crash' })).status).toBe(202)

    await server.crash()
    await server.start()

    // Any request wakes the object; its constructor recovers and an alarm resumes the drain.
    await until(async () => (await server.get<{ status: string }>('/v1/sessions/crashy')).status === 'idle', 'the session to finish its drain')
    const log = await server.history('crashy')
    const types = log.map((e) => e.type.replace('session.next.', ''))
    const failed = log.find((e) => e.type === 'session.next.tool.failed')!
    expect(failed.payload).toMatchObject({ error: { code: 'ABANDONED', message: 'abandoned by restart' } })
    expect(types).not.toContain('tool.succeeded')
    expect(log.find((e) => e.type === 'session.next.drain.ended')!.payload).toMatchObject({ reason: 'recovered' })
    // Both admitted prompts were promoted exactly once.
    const promoted = log.filter((e) => e.type === 'session.next.prompted').flatMap((e) => e.payload.messageIds as string[])
    expect(promoted).toEqual(['slow', 'next'])
    expect(log.filter((e) => e.type === 'session.next.text').map((e) => e.payload.text).join(' ')).toContain('after the crash')
    expect(types.at(-1)).toBe('drain.ended')
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1))
  })
})
