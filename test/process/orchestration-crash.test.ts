import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { Restartable, until } from '../support/restartable.ts'

type View = { status: string; packages: { id: string; beat: string; result: unknown }[] }

describe('orchestration crash mid-EXECUTE (real wrangler dev, kill -9)', () => {
  const server = new Restartable()
  afterAll(() => server.stop())
  const get = <T>(path: string) => server.get<T>(path)

  it('resumes from its log after restart: every package reports exactly once, none is lost', async () => {
    await server.start()
    const work = (name: string, slow: number) =>
      [`/beat declare /tool declare {"writes":["file:${name}"]}`, `/beat execute /slow ${slow}`, '/beat execute /tokens 20', `/beat execute /tool report {"result":"${name} done"}`].join('\n')
    const plan = [
      { id: 'a', instructions: work('a', 0) },
      { id: 'b', needs: ['a'], instructions: work('b', 150) },
      { id: 'c', needs: ['a'], instructions: work('c', 150) },
      { id: 'd', needs: ['b', 'c'], instructions: work('d', 0) },
    ]
    const created = await server.post('/v1/orchestrations', { id: 'crashy', goal: 'survive a crash', plan })
    expect(created.status).toBe(201)
    await until(async () => (await get<View>('/v1/orchestrations/crashy')).packages.filter((p) => p.beat === 'executing').length === 2, 'b and c to execute', 90_000)

    await server.crash()
    await server.start()

    // A read wakes the object; its tick re-delivers to the agents, whose sessions recover and go on.
    await until(async () => (await get<View>('/v1/orchestrations/crashy')).status !== 'running', 'the orchestration to finish', 90_000)
    const view = await get<View>('/v1/orchestrations/crashy')
    expect(view.status).toBe('completed')
    expect(view.packages.map((p) => [p.id, p.beat, p.result])).toEqual(plan.map((p) => [p.id, 'reported', `${p.id} done`]))
    const log = await server.history('crashy', 'orchestrations')
    const reported = log.filter((e) => e.type === 'orchestration.package.reported').map((e) => e.payload.package)
    expect(reported.sort()).toEqual(['a', 'b', 'c', 'd'])
    // No package was assigned twice: the crash was survived, not retried.
    expect(log.filter((e) => e.type === 'orchestration.package.assigned')).toHaveLength(4)
  })

  it("the README's orchestration curl runs to completion, b and c overlapping", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const body = /curl -s -XPOST localhost:8787\/v1\/orchestrations -H "\$H" -d '([^']+)'/.exec(readme)![1]!
    const created = await server.post('/v1/orchestrations', body)
    expect(created.status).toBe(201)
    await until(async () => (await get<View>('/v1/orchestrations/demo-orch')).status !== 'running', 'the README orchestration to finish', 90_000)
    expect((await get<View>('/v1/orchestrations/demo-orch')).status).toBe('completed')
    const log = await server.history('demo-orch', 'orchestrations')
    const seq = (type: string, pkg: string) => log.find((e) => e.type === `orchestration.package.${type}` && e.payload.package === pkg)!.seq
    expect(seq('executing', 'b')).toBeLessThan(seq('reported', 'c'))
    expect(seq('executing', 'c')).toBeLessThan(seq('reported', 'b'))
  })
})
