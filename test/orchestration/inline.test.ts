import { describe, expect, it } from 'vitest'
import { api } from '../support/api.ts'
import { decisions, finished, newOrchestration, script, seqOf, waitUntil } from '../support/orchestration.ts'

describe('fan-out only when it pays, on the local model', () => {
  it('small packages run inline in one agent session, each reported once; a large one gets its own agent', async () => {
    const plan = [
      { id: 's1', expect: { ms: 5 }, instructions: script('s1 done', { writes: ['file:s1'] }) },
      { id: 's2', expect: { ms: 5 }, instructions: script('s2 done', { writes: ['file:s2'] }) },
      { id: 's3', needs: ['s1'], expect: { ms: 5 }, instructions: script('s3 done', { reads: ['file:s1'], writes: ['file:s3'] }) },
      { id: 's4', expect: { ms: 5 }, instructions: script('s4 done') },
      { id: 'big', expect: { ms: 60_000 }, instructions: script('big done', { writes: ['file:big'] }, 20) },
    ]
    const { id } = await newOrchestration({ plan })
    const view = await waitUntil(id, finished, 60_000)
    expect(view.status).toBe('completed')
    expect(view.packages.map((p) => [p.id, p.beat, p.result])).toEqual(plan.map((p) => [p.id, 'reported', `${p.id} done`]))
    // Two agent sessions in all: the shared inline one and big's own.
    const sessions = new Set(view.packages.map((p) => p.session))
    expect(sessions.size).toBe(2)
    const inline = view.packages.filter((p) => p.id !== 'big')
    expect(new Set(inline.map((p) => p.session)).size).toBe(1)
    expect(view.packages.find((p) => p.id === 'big')!.session).not.toBe(inline[0]!.session)
    expect(inline.every((p) => p.inline?.includes('inline in one agent'))).toBe(true)
    expect(view.packages.find((p) => p.id === 'big')!.inline).toBeNull()
    const log = await decisions(id)
    // Every package is reported exactly once and its placement is durable, with the reason.
    for (const p of plan) expect(log.filter((e) => e.type === 'orchestration.package.reported' && (e.payload as { package: string }).package === p.id)).toHaveLength(1)
    const inlined = log.filter((e) => e.type === 'orchestration.package.inlined')
    expect(inlined.map((e) => (e.payload as { package: string }).package).sort()).toEqual(['s1', 's2', 's3', 's4'])
    expect(inlined[0]!.payload).toMatchObject({ expectedMs: 5, breakEvenMs: expect.any(Number), reason: expect.stringContaining('5 ms < break-even') })
    // One at a time in the shared agent: each inline package is assigned after the previous one reported.
    const order = inline.map((p) => p.id).sort((x, y) => seqOf(log, 'assigned', x) - seqOf(log, 'assigned', y))
    for (let i = 1; i < order.length; i++) expect(seqOf(log, 'assigned', order[i]!)).toBeGreaterThan(seqOf(log, 'reported', order[i - 1]!))
    expect(seqOf(log, 'assigned', 's3')).toBeGreaterThan(seqOf(log, 'reported', 's1'))
    // Each package's beats and burn are its own, also in the shared session.
    expect(log.filter((e) => e.type === 'orchestration.package.declared')).toHaveLength(5)
    expect(view.packages.every((p) => p.burn.tokens > 0)).toBe(true)
    expect(view.burn.tokens).toBe(view.packages.reduce((sum, p) => sum + p.burn.tokens, 0))
    // The shared session took both prompts of each of its four packages.
    const shared = (await (await api(`/v1/sessions/${inline[0]!.session}`)).json()) as { counts: { prompts: number } }
    expect(shared.counts.prompts).toBe(8)
  })
})
