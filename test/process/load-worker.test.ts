/**
 * The load harness's worker (`bench/load/worker.ts`, what `npm run load` starts) still runs
 * under a real `wrangler dev` and counts rows: wrangler refuses to start a worker that does
 * not export every class wrangler.toml binds, which once left `npm run load` waiting forever.
 * One session takes one turn; the count then shows the session's and the graph's writes, and
 * the graph's chain for a later one-step turn costs what test/graph/rows.test.ts says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse } from '../../client/sse.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

describe('the load harness worker', () => {
  let dev: Wrangler
  let headers: Record<string, string>
  beforeAll(async () => {
    dev = await startWrangler({ script: 'bench/load/worker.ts' })
    headers = { 'content-type': 'application/json', authorization: `Bearer ${await devToken('load-smoke')}` }
  })
  afterAll(() => dev?.stop())

  const rows = async () => (await (await fetch(`${dev.url}/__bench/rows`)).json()) as Record<string, number>
  /** Rows once they have stopped moving (the graph's chain is written after the drain). */
  async function settled(): Promise<Record<string, number>> {
    let last = await rows()
    for (let quiet = 0; quiet < 4; ) {
      await new Promise((r) => setTimeout(r, 250))
      const now = await rows()
      quiet = now.total === last.total ? quiet + 1 : 0
      last = now
    }
    return last
  }
  async function turn(id: string, text: string): Promise<void> {
    const res = await fetch(`${dev.url}/v1/sessions/${id}/prompt`, { method: 'POST', headers, body: JSON.stringify({ text }) })
    expect(res.status).toBe(202)
    const { sequence } = (await res.json()) as { sequence: number }
    const events = await fetch(`${dev.url}/v1/sessions/${id}/events?after=${sequence}`, { headers })
    for await (const message of readSse(events.body!)) if (message.event === 'session.next.drain.ended') return
    throw new Error('the stream ended before the drain did')
  }

  it('starts, serves a turn, and counts the rows of each object class', async () => {
    expect((await fetch(`${dev.url}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ id: 'smoke' }) })).status).toBe(201)
    await turn('smoke', 'first')
    const before = await settled()
    expect(before.session).toBeGreaterThan(0)
    expect(before.graph).toBeGreaterThan(0)
    await turn('smoke', 'second')
    const after = await settled()
    // The second turn's chain: two turn nodes and four edges (the model's agent node exists already).
    expect(after.graph! - before.graph!).toBe(26)
    expect(after.session! - before.session!).toBeGreaterThan(0)
  })
})
