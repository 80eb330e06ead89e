import { afterAll, describe, expect, it } from 'vitest'
import { Restartable, until } from '../support/restartable.ts'

describe('kill -9 around a compaction turn (real wrangler dev, local/echo-small)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())
  /** Polls every 20 ms: the kill must land while a compaction runs. */
  const soon = (check: () => Promise<boolean>, what: string) => until(check, what, 90_000, 20)

  it('after a restart the compaction either completed or is invisible; the drain finishes; sequences are contiguous', { timeout: 240_000 }, async () => {
    await server.start()
    expect((await server.post('/v1/sessions', { id: 'compacty', model: 'local/echo-small' })).status).toBe(201)
    const PROMPTS = 80
    for (let i = 1; i <= PROMPTS; i++) {
      const text = `prompt ${i}: the quick brown fox jumps over the lazy dog while the ledger folds every event`
      expect((await server.post('/v1/sessions/compacty/prompt', { id: `p${i}`, text })).status).toBe(202)
    }
    // Kill the moment a compaction has started (it may have finished by the time the signal lands).
    await soon(async () => (await server.history('compacty')).some((e) => e.type === 'session.next.compaction.started'), 'a compaction to start')
    await server.crash()
    await server.start()

    await soon(async () => (await server.get<{ status: string }>('/v1/sessions/compacty')).status === 'idle', 'the drain to finish after restart')
    const log = await server.history('compacty')
    // Every compaction that started has ended: completed, or failed as abandoned by the restart (invisible).
    const started = log.filter((e) => e.type === 'session.next.compaction.started').map((e) => e.payload.id)
    const ended = new Map(log.filter((e) => e.type === 'session.next.compaction.ended').map((e) => [e.payload.id, e.payload]))
    expect(started.length).toBeGreaterThan(0)
    for (const id of started) {
      const end = ended.get(id)!
      expect(end).toBeDefined()
      if (end.outcome !== 'completed') expect(end).toMatchObject({ outcome: 'failed', error: { code: 'ABANDONED' } })
    }
    // Nothing else failed for good: each prompt was promoted exactly once and answered.
    expect(log.filter((e) => e.type === 'session.next.halted')).toEqual([])
    const promoted = log.filter((e) => e.type === 'session.next.prompted').flatMap((e) => e.payload.messageIds as string[])
    expect(promoted).toEqual(Array.from({ length: PROMPTS }, (_, i) => `p${i + 1}`))
    const texts = log.filter((e) => e.type === 'session.next.text').map((e) => String(e.payload.text))
    expect(texts.at(-1)).toContain(`prompt ${PROMPTS}`)
    expect(log.at(-1)!.type).toBe('session.next.drain.ended')
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1))
  })
})
