import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

type Event = { seq: number; type: string; payload: Record<string, unknown> }

describe('session crash mid-tool (real wrangler dev, kill -9)', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  let auth: Record<string, string> = {}
  afterAll(async () => dev?.stop())

  const post = (path: string, body: unknown) =>
    fetch(`${dev!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) })
  const history = async (id: string): Promise<Event[]> =>
    ((await (await fetch(`${dev!.url}/v1/sessions/${id}/history?limit=1000`, { headers: auth })).json()) as { items: Event[] }).items
  async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  it('fails the running call durably, keeps admitted prompts, and finishes the drain after restart', async () => {
    dev = await startWrangler({ persistTo })
    auth = { authorization: `Bearer ${await devToken()}` }
    expect((await post('/v1/sessions', { id: 'crashy' })).status).toBe(201)
    expect((await post('/v1/sessions/crashy/prompt', { id: 'slow', text: '/tool wait {"ms":60000}' })).status).toBe(202)
    await until(async () => (await history('crashy')).some((e) => e.type === 'session.next.tool.called'), 'the slow call to start')
    expect((await post('/v1/sessions/crashy/prompt', { id: 'next', text: 'after the crash' })).status).toBe(202)

    await dev.crash()
    dev = await startWrangler({ persistTo })

    // Any request wakes the object; its constructor recovers and an alarm resumes the drain.
    await until(async () => {
      const view = (await (await fetch(`${dev!.url}/v1/sessions/crashy`, { headers: auth })).json()) as { status: string }
      return view.status === 'idle'
    }, 'the session to finish its drain')
    const log = await history('crashy')
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
