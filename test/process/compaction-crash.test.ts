import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

type Event = { seq: number; type: string; payload: Record<string, unknown> }

describe('kill -9 around a compaction turn (real wrangler dev, local/echo-small)', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  let auth: Record<string, string> = {}
  afterAll(async () => dev?.stop())

  const post = (path: string, body: unknown) =>
    fetch(`${dev!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) })
  async function history(id: string): Promise<Event[]> {
    const all: Event[] = []
    for (let after = 0; ; ) {
      const page = (await (await fetch(`${dev!.url}/v1/sessions/${id}/history?after=${after}&limit=1000`, { headers: auth })).json()) as { items: Event[]; next: number | null }
      all.push(...page.items)
      if (page.next === null) return all
      after = page.next
    }
  }
  async function until(check: () => Promise<boolean>, what: string, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it('after a restart the compaction either completed or is invisible; the drain finishes; sequences are contiguous', { timeout: 240_000 }, async () => {
    dev = await startWrangler({ persistTo })
    auth = { authorization: `Bearer ${await devToken()}` }
    expect((await post('/v1/sessions', { id: 'compacty', model: 'local/echo-small' })).status).toBe(201)
    const PROMPTS = 80
    for (let i = 1; i <= PROMPTS; i++) {
      const text = `prompt ${i}: the quick brown fox jumps over the lazy dog while the ledger folds every event`
      expect((await post('/v1/sessions/compacty/prompt', { id: `p${i}`, text })).status).toBe(202)
    }
    // Kill the moment a compaction has started (it may have finished by the time the signal lands).
    await until(async () => (await history('compacty')).some((e) => e.type === 'session.next.compaction.started'), 'a compaction to start')
    await dev.crash()
    dev = await startWrangler({ persistTo })

    await until(async () => {
      const view = (await (await fetch(`${dev!.url}/v1/sessions/compacty`, { headers: auth })).json()) as { status: string }
      return view.status === 'idle'
    }, 'the drain to finish after restart')
    const log = await history('compacty')
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
