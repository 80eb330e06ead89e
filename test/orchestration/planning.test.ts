import { describe, expect, it } from 'vitest'
import { postJson } from '../support/api.ts'
import { decisions, finished, newOrchestration, script, waitUntil } from '../support/orchestration.ts'
import { events as sessionEvents } from '../support/session.ts'

/** A goal the local model plans from: its `/beat plan` line is the `plan` call. */
const goalWith = (packages: unknown[]) => `Ship the feature.\n/beat plan /tool plan ${JSON.stringify({ packages })}`

describe('the planning turn', () => {
  it('without a plan, a planner agent produces the DAG through the plan tool, and it runs', async () => {
    const packages = [
      { id: 'one', needs: [], instructions: script('one done', { writes: ['file:1'] }) },
      { id: 'two', needs: ['one'], instructions: script('two done', { writes: ['file:2'] }) },
    ]
    const { id, view: created } = await newOrchestration({ goal: goalWith(packages) })
    expect(created).toMatchObject({ planned: false, packages: [] })
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('completed')
    expect(view.planned).toBe(true)
    expect(view.packages.map((p) => [p.id, p.needs, p.beat])).toEqual([['one', [], 'reported'], ['two', ['one'], 'reported']])
    const log = await decisions(id)
    expect(log.map((e) => e.type).slice(0, 3)).toEqual(['orchestration.created', 'orchestration.planner.assigned', 'orchestration.planned'])
    // The planner's turns count toward the whole orchestration's burn.
    await expect.poll(async () => (await decisions(id)).some((e) => e.type === 'orchestration.package.burned' && (e.payload as { package: string }).package === '(planner)')).toBe(true)
  })

  it('a planned cycle is refused to the planner, named in its tool result, and nothing is scheduled', async () => {
    const packages = [
      { id: 'a', needs: ['b'], instructions: 'x' },
      { id: 'b', needs: ['a'], instructions: 'y' },
    ]
    const { id } = await newOrchestration({ goal: goalWith(packages) })
    const planner = (await waitUntil(id, (v) => v.planner !== null)).planner!
    await expect
      .poll(async () => (await sessionEvents(planner)).find((e) => e.type === 'session.next.tool.succeeded')?.payload, { timeout: 10_000 })
      .toMatchObject({ content: expect.stringContaining('INVALID_PLAN') })
    const view = await waitUntil(id, (v) => v.planner !== null)
    expect(view).toMatchObject({ planned: false, status: 'running', packages: [] })
    expect(await (await postJson(`/v1/orchestrations/${id}/cancel`, { reason: 'bad plan' })).json()).toMatchObject({ cancelled: [] })
    expect((await waitUntil(id, finished)).status).toBe('cancelled')
  })
})
