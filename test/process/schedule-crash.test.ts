/**
 * Schedules across a crash (real `wrangler dev`, `kill -9` of its process group): a schedule due
 * in 2 s whose process dies before the fire fires after the restart; one whose process dies right
 * after the fire admitted its prompt (its answer on the way) is not admitted again. Either way the
 * prompt is admitted once and answered once.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type Event, Restartable, until } from '../support/restartable.ts'

const admittedFor = (log: Event[], schedule: string) => log.filter((e) => e.type === 'session.next.admitted' && String(e.payload.messageId).startsWith(`schedule:${schedule}:`))
const idle = async (server: Restartable, id: string) => (await server.get<{ status: string; pending: number }>(`/v1/sessions/${id}`)).status === 'idle'

describe('schedules across kill -9 (real wrangler dev)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())

  it('a fire due during the crash comes after the restart, and a fire just admitted is not admitted again: each answered once', async () => {
    await server.start()
    expect((await server.post('/v1/sessions', { id: 'timed' })).status).toBe(201)
    // Dies before its fire; restarted after the due time.
    const before = await server.post('/v1/sessions/timed/schedules', { id: 'before', when: { kind: 'after', seconds: 2 }, prompt: { text: 'fired after the restart' } })
    expect(before.status).toBe(201)
    await server.crash()
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    await server.start()
    await until(async () => admittedFor(await server.history('timed'), 'before').length > 0 && (await idle(server, 'timed')), 'the missed fire after the restart')

    // Dies right after its fire admitted the prompt, while the answer streams.
    const during = await server.post('/v1/sessions/timed/schedules', { id: 'during', when: { kind: 'after', seconds: 2 }, prompt: { text: 'fired before the crash\n/slow 50\n/tokens 40' } })
    expect(during.status).toBe(201)
    await until(async () => admittedFor(await server.history('timed'), 'during').length > 0, 'the fire before the crash', 20_000, 20)
    await server.crash()
    await server.start()
    await until(async () => idle(server, 'timed'), 'the drain after the restart')
    await until(async () => (await server.get<{ items: unknown[] }>('/v1/sessions/timed/schedules')).items.length === 0, 'both schedules to end')

    const log = await server.history('timed')
    for (const schedule of ['before', 'during']) {
      const admitted = admittedFor(log, schedule)
      expect(admitted, schedule).toHaveLength(1)
      const id = admitted[0]!.payload.messageId as string
      // Promoted into one loop exactly once.
      expect(log.filter((e) => e.type === 'session.next.prompted' && (e.payload.messageIds as string[]).includes(id)), schedule).toHaveLength(1)
    }
    // Each prompt got one whole answer: two turns ended with a stop, one per fire.
    const stops = log.filter((e) => e.type === 'session.next.step.ended' && e.payload.finish === 'stop')
    expect(stops).toHaveLength(2)
  })
})
