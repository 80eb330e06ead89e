/**
 * Agent profiles through a real `wrangler dev` on the local model: a profile written over HTTP
 * into the principal's config is listed by `GET /v1/agents` beside Neuron's own `default`; a
 * session created with it is offered only the calculator its `tools` names (the step's recorded
 * tool list) and calls it; an unknown agent is 400 `UNKNOWN_AGENT` and leaves no session behind;
 * after a `kill -9` the session still runs its profile, from its `created` event.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type Event, Restartable, until } from '../support/restartable.ts'

describe('agent profiles (real wrangler dev, kill -9)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())

  const put = (path: string, body: unknown) => server.fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  /** The tool names each step of the session was offered, read from the artifacts its `step.started` events name. */
  const offered = async (id: string) =>
    Promise.all(
      (await server.history(id))
        .filter((e) => e.type === 'session.next.step.started')
        .map(async (e) => ((await server.get<{ name: string }[]>(`/v1/sessions/${id}/artifacts/${e.payload.tools as string}`)) as { name: string }[]).map((spec) => spec.name)),
    )
  const succeeded = async (id: string, count: number) =>
    until(async () => {
      const done = (await server.history(id)).filter((e: Event) => e.type === 'session.next.tool.succeeded')
      return done.length >= count ? done : undefined
    }, `${count} calls of ${id} to succeed`)

  it('an HTTP-written profile is listed, runs its session on the calculator alone, survives a restart; an unknown one writes nothing', async () => {
    await server.start()
    expect((await put('/v1/config', { agents: { calc: { description: 'Arithmetic only', tools: ['calculator'], instructions: ['Compute; do not chat.'] } } })).status).toBe(200)
    const listed = await server.get<{ items: { name: string; source: string; profile: { tools?: string[] } }[] }>('/v1/agents')
    expect(listed.items.map(({ name, source }) => [name, source])).toEqual([['calc', 'config'], ['default', 'builtin']])
    expect(listed.items.find((item) => item.name === 'calc')!.profile.tools).toEqual(['calculator'])

    const refused = await server.post('/v1/sessions', { id: 'ghost', agent: 'nobody' })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNKNOWN_AGENT')
    expect((await server.fetch('/v1/sessions/ghost')).status).toBe(404)
    expect((await server.get<{ items: unknown[] }>('/v1/sessions')).items).toEqual([])

    const created = await server.post('/v1/sessions', { id: 'calc-1', agent: 'calc' })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ agent: 'calc', model: 'local/echo-1' })
    expect((await server.post('/v1/sessions/calc-1/prompt', { text: '/tool calculator {"expression":"6*7"}' })).status).toBe(202)
    const [first] = await succeeded('calc-1', 1)
    expect(String(first!.payload.content)).toContain('42')
    expect((await offered('calc-1')).every((names) => names.join() === 'calculator')).toBe(true)

    await server.crash()
    await server.start()

    expect(await server.get('/v1/sessions/calc-1')).toMatchObject({ agent: 'calc' })
    expect((await server.post('/v1/sessions/calc-1/prompt', { text: '/tool calculator {"expression":"2+3"}' })).status).toBe(202)
    await succeeded('calc-1', 2)
    const steps = await offered('calc-1')
    expect(steps.length).toBeGreaterThanOrEqual(2)
    expect(steps.every((names) => names.join() === 'calculator')).toBe(true)
    expect((await server.get<{ items: { id: string }[] }>('/v1/sessions')).items.map((item) => item.id)).toEqual(['calc-1'])
  })
})
