import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

type Event = { seq: number; type: string; payload: Record<string, unknown> }

describe('memory across sessions and a process crash (real wrangler dev, kill -9)', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  let auth: Record<string, string> = {}
  afterAll(async () => dev?.stop())

  const post = (path: string, body: unknown) =>
    fetch(`${dev!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) })
  const get = async (path: string) => (await fetch(`${dev!.url}${path}`, { headers: auth })).json() as Promise<Record<string, unknown>>
  const history = async (id: string): Promise<Event[]> => ((await get(`/v1/sessions/${id}/history?limit=1000`)) as { items: Event[] }).items
  async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await check()
      if (value !== undefined) return value
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const toolResult = (id: string) =>
    until(async () => {
      const done = (await history(id)).find((e) => e.type === 'session.next.tool.succeeded')
      return done ? JSON.parse(done.payload.content as string) : undefined
    }, `a tool result in ${id}`)

  it('the README walk-through: remember in one session, the process dies, another session recalls it', async () => {
    dev = await startWrangler({ persistTo })
    auth = { authorization: `Bearer ${await devToken()}` }
    expect((await post('/v1/sessions', { id: 'monday' })).status).toBe(201)
    await post('/v1/sessions/monday/prompt', { text: '/tool memory_remember {"text":"the deploy window is Thursday 14:00 UTC"}' })
    expect(await toolResult('monday')).toMatchObject({ duplicate: false })

    await dev.crash()
    dev = await startWrangler({ persistTo })

    expect((await post('/v1/sessions', { id: 'tuesday' })).status).toBe(201)
    await post('/v1/sessions/tuesday/prompt', { text: '/tool memory_recall {"query":"when is the deploy window?"}' })
    const recalled = (await toolResult('tuesday')) as { memories: { text: string; sources: string[] }[] }
    expect(recalled.memories[0]).toEqual({ address: expect.stringMatching(/^node\.knowledge\./), text: 'the deploy window is Thursday 14:00 UTC', sources: ['node.conversation.monday'] })

    // The monday session's turns reach the graph as a chain, written after the restart at the latest.
    const opening = await until(async () => {
      const page = (await get('/v1/graph/nodes/node.conversation.monday/neighbours?direction=in&type=follows')) as { items?: { source: string }[] }
      return page.items?.[0]?.source
    }, 'the monday chain in the graph')
    const turn = (await get(`/v1/graph/nodes/${opening}`)) as { node: { text: string } }
    expect(turn.node.text).toContain('memory_remember')

    // Forget it over HTTP: recall stops returning it, the memory node's history keeps it with the reason.
    const address = (recalled.memories[0] as unknown as { address: string }).address
    expect((await post('/v1/memory/forget', { address, reason: 'moved to Friday' })).status).toBe(200)
    expect(await (await post('/v1/memory/recall', { query: 'deploy window' })).json()).toEqual({ items: [] })
    const memoryNode = (await get('/v1/graph/nodes/node.memory.main')) as { history: { retired: { reason: string } | null }[] }
    expect(memoryNode.history.map((e) => e.retired?.reason)).toEqual(['moved to Friday'])
  })
})
