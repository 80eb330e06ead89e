import { describe, expect, it } from 'vitest'
import { api } from '../support/api.ts'
import { decisions, finished, newOrchestration, script, seqOf, waitUntil } from '../support/orchestration.ts'

describe('an orchestration runs a DAG of agent sessions on the local model', () => {
  it('a six-package diamond runs to completion; order respects every edge; independent packages overlap', async () => {
    const plan = [
      { id: 'a', needs: [], instructions: script('a done', { writes: ['file:base'] }) },
      { id: 'b', needs: ['a'], instructions: script('b done', { reads: ['file:base'], writes: ['file:b'] }, 40) },
      { id: 'c', needs: ['a'], instructions: script('c done', { reads: ['file:base'], writes: ['file:c'] }, 40) },
      { id: 'd', needs: ['a'], instructions: script('d done', { writes: ['file:d'] }, 40) },
      { id: 'e', needs: ['b', 'c'], instructions: script('e done', { reads: ['file:b', 'file:c'], writes: ['file:e'] }) },
      { id: 'f', needs: ['d', 'e'], instructions: script('f done', { reads: ['file:d', 'file:e'], writes: ['file:f'] }) },
    ]
    const { id } = await newOrchestration({ plan })
    const view = await waitUntil(id, finished, 60_000)
    expect(view.status).toBe('completed')
    expect(view.packages.map((p) => [p.id, p.beat, p.result])).toEqual(plan.map((p) => [p.id, 'reported', `${p.id} done`]))
    const log = await decisions(id)
    // Every edge: a package is assigned only after each of its needs reported.
    for (const p of plan) for (const need of p.needs) expect(seqOf(log, 'assigned', p.id)).toBeGreaterThan(seqOf(log, 'reported', need))
    // b and c (no path between them) were executing at the same time.
    expect(seqOf(log, 'executing', 'b')).toBeLessThan(seqOf(log, 'reported', 'c'))
    expect(seqOf(log, 'executing', 'c')).toBeLessThan(seqOf(log, 'reported', 'b'))
    // The six beats are durable events, and every package's burn is folded into the total.
    expect(log.filter((e) => e.type === 'orchestration.package.declared')).toHaveLength(6)
    expect(view.packages.every((p) => p.burn.tokens > 0)).toBe(true)
    expect(view.burn.tokens).toBe(view.packages.reduce((sum, p) => sum + p.burn.tokens, 0))
    expect(log.some((e) => e.type === 'orchestration.finished')).toBe(true)
    // Each agent's session is an ordinary session its owner can read through the session routes.
    const agent = await api(`/v1/sessions/${view.packages[0]!.session}`)
    expect(agent.status).toBe(200)
    expect(await agent.json()).toMatchObject({ title: 'agent for a', model: 'local/echo-1', status: 'idle' })
    expect((await api(`/v1/sessions/${view.packages[0]!.session}`, {}, 'mallory')).status).toBe(404)
  })
})
