import { afterAll, describe, expect, it } from 'vitest'
import { Restartable, until } from '../support/restartable.ts'

describe('memory across sessions and a process crash (real wrangler dev, kill -9)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())
  const toolResult = (id: string) =>
    until(async () => {
      const done = (await server.history(id)).find((e) => e.type === 'session.next.tool.succeeded')
      return done ? JSON.parse(done.payload.content as string) : undefined
    }, `a tool result in ${id}`)

  it('the README walk-through: remember in one session, the process dies, another session recalls it', async () => {
    await server.start()
    expect((await server.post('/v1/sessions', { id: 'monday' })).status).toBe(201)
    await server.post('/v1/sessions/monday/prompt', { text: '/tool memory_remember {"text":"the deploy window is Thursday 14:00 UTC"}' })
    expect(await toolResult('monday')).toMatchObject({ duplicate: false })

    await server.crash()
    await server.start()

    expect((await server.post('/v1/sessions', { id: 'tuesday' })).status).toBe(201)
    await server.post('/v1/sessions/tuesday/prompt', { text: '/tool memory_recall {"query":"when is the deploy window?"}' })
    const recalled = (await toolResult('tuesday')) as { memories: { text: string; sources: string[] }[] }
    expect(recalled.memories[0]).toEqual({ address: expect.stringMatching(/^node\.knowledge\./), text: 'the deploy window is Thursday 14:00 UTC', sources: ['node.conversation.monday'] })

    // The monday session's turns reach the graph as a chain, written after the restart at the latest.
    const opening = await until(async () => {
      const page = (await server.get('/v1/graph/nodes/node.conversation.monday/neighbours?direction=in&type=follows')) as { items?: { source: string }[] }
      return page.items?.[0]?.source
    }, 'the monday chain in the graph')
    const turn = (await server.get(`/v1/graph/nodes/${opening}`)) as { node: { text: string } }
    expect(turn.node.text).toContain('memory_remember')

    // Forget it over HTTP: recall stops returning it, the memory node's history keeps it with the reason.
    const address = (recalled.memories[0] as unknown as { address: string }).address
    expect((await server.post('/v1/memory/forget', { address, reason: 'moved to Friday' })).status).toBe(200)
    expect(await (await server.post('/v1/memory/recall', { query: 'deploy window' })).json()).toEqual({ items: [] })
    const memoryNode = (await server.get('/v1/graph/nodes/node.memory.main')) as { history: { retired: { reason: string } | null }[] }
    expect(memoryNode.history.map((e) => e.retired?.reason)).toEqual(['moved to Friday'])
  })
})
