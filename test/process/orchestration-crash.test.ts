import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

type Event = { seq: number; type: string; payload: Record<string, unknown> }
type View = { status: string; packages: { id: string; beat: string; result: unknown }[] }

describe('orchestration crash mid-EXECUTE (real wrangler dev, kill -9)', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  let auth: Record<string, string> = {}
  afterAll(async () => dev?.stop())

  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${dev!.url}${path}`, { headers: auth })).json()) as T
  async function until(check: () => Promise<boolean>, what: string, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  it('resumes from its log after restart: every package reports exactly once, none is lost', async () => {
    dev = await startWrangler({ persistTo })
    auth = { authorization: `Bearer ${await devToken()}` }
    const work = (name: string, slow: number) =>
      [`/beat declare /tool declare {"writes":["file:${name}"]}`, `/beat execute /slow ${slow}`, '/beat execute /tokens 20', `/beat execute /tool report {"result":"${name} done"}`].join('\n')
    const plan = [
      { id: 'a', instructions: work('a', 0) },
      { id: 'b', needs: ['a'], instructions: work('b', 150) },
      { id: 'c', needs: ['a'], instructions: work('c', 150) },
      { id: 'd', needs: ['b', 'c'], instructions: work('d', 0) },
    ]
    const created = await fetch(`${dev.url}/v1/orchestrations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ id: 'crashy', goal: 'survive a crash', plan }),
    })
    expect(created.status).toBe(201)
    await until(async () => (await get<View>('/v1/orchestrations/crashy')).packages.filter((p) => p.beat === 'executing').length === 2, 'b and c to execute')

    await dev.crash()
    dev = await startWrangler({ persistTo })

    // A read wakes the object; its tick re-delivers to the agents, whose sessions recover and go on.
    await until(async () => (await get<View>('/v1/orchestrations/crashy')).status !== 'running', 'the orchestration to finish')
    const view = await get<View>('/v1/orchestrations/crashy')
    expect(view.status).toBe('completed')
    expect(view.packages.map((p) => [p.id, p.beat, p.result])).toEqual(plan.map((p) => [p.id, 'reported', `${p.id} done`]))
    const log = (await get<{ items: Event[] }>('/v1/orchestrations/crashy/history?limit=1000')).items
    const reported = log.filter((e) => e.type === 'orchestration.package.reported').map((e) => e.payload.package)
    expect(reported.sort()).toEqual(['a', 'b', 'c', 'd'])
    // No package was assigned twice: the crash was survived, not retried.
    expect(log.filter((e) => e.type === 'orchestration.package.assigned')).toHaveLength(4)
  })

  it("the README's orchestration curl runs to completion, b and c overlapping", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const body = /curl -s -XPOST localhost:8787\/v1\/orchestrations -H "\$H" -d '([^']+)'/.exec(readme)![1]!
    const created = await fetch(`${dev!.url}/v1/orchestrations`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body })
    expect(created.status).toBe(201)
    await until(async () => (await get<View>('/v1/orchestrations/demo-orch')).status !== 'running', 'the README orchestration to finish')
    expect((await get<View>('/v1/orchestrations/demo-orch')).status).toBe('completed')
    const log = (await get<{ items: Event[] }>('/v1/orchestrations/demo-orch/history?limit=1000')).items
    const seq = (type: string, pkg: string) => log.find((e) => e.type === `orchestration.package.${type}` && e.payload.package === pkg)!.seq
    expect(seq('executing', 'b')).toBeLessThan(seq('reported', 'c'))
    expect(seq('executing', 'c')).toBeLessThan(seq('reported', 'b'))
  })
})
