import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { emptyOrchestration, reduceOrchestration, viewOfOrchestration } from '../../objects/orchestration/state.ts'
import { api, postJson } from '../support/api.ts'
import { bearer } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'
import { decisions, finished, newOrchestration, owner, script, seqOf, waitUntil } from '../support/orchestration.ts'
import { events as sessionEvents } from '../support/session.ts'

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; details?: unknown } }).error

describe('plans', () => {
  it('a cycle, an unknown dependency and a duplicate id are each a 400 naming it, and nothing is created', async () => {
    const cases: [unknown[], unknown][] = [
      [[{ id: 'a', needs: ['b'], instructions: 'x' }, { id: 'b', needs: ['a'], instructions: 'x' }], { kind: 'cycle', cycle: ['a', 'b', 'a'] }],
      [[{ id: 'a', needs: ['ghost'], instructions: 'x' }], { kind: 'unknown-dependency', package: 'a', needs: 'ghost' }],
      [[{ id: 'a', instructions: 'x' }, { id: 'a', instructions: 'y' }], { kind: 'duplicate-id', package: 'a' }],
    ]
    for (const [plan, details] of cases) {
      const id = uniqueName('bad-plan')
      const res = await postJson('/v1/orchestrations', { id, goal: 'g', plan })
      expect(res.status).toBe(400)
      expect(await errorOf(res)).toMatchObject({ code: 'INVALID_PLAN', details })
      expect((await errorOf(await api(`/v1/orchestrations/${id}`))).code).toBe('ORCHESTRATION_NOT_FOUND')
    }
    const empty = await postJson('/v1/orchestrations', { goal: 'g', plan: [] })
    expect((await errorOf(empty)).code).toBe('INVALID_REQUEST')
    const model = await postJson('/v1/orchestrations', { goal: 'g', model: 'nobody/nothing', plan: [{ id: 'a', instructions: 'x' }] })
    expect(model.status).toBe(400)
    expect((await errorOf(model)).code).toBe('UNKNOWN_MODEL')
  })

  it("others get the 404 an unknown id gets; a shared claim grants reading", async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }], share: ['org:acme'] })
    expect((await errorOf(await api(`/v1/orchestrations/${id}`, {}, 'mallory'))).code).toBe('ORCHESTRATION_NOT_FOUND')
    const shared = await api(`/v1/orchestrations/${id}`, { headers: await bearer('bob', ['org:acme']) })
    expect(shared.status).toBe(200)
    await waitUntil(id, finished)
  })
})

describe('clearance', () => {
  it('a write/write conflict between unordered packages is refused at clearance, named, and serialised by an added edge', async () => {
    const plan = ['x', 'y'].map((id) => ({ id, needs: [], instructions: script(`${id} done`, { writes: ['file:shared'] }, 40) }))
    const { id } = await newOrchestration({ plan })
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('completed')
    const log = await decisions(id)
    const refused = log.filter((e) => e.type === 'orchestration.package.refused')
    expect(refused).toHaveLength(1)
    const { package: second, conflicts, edges } = refused[0]!.payload as { package: string; conflicts: unknown[]; edges: string[][] }
    const first = second === 'x' ? 'y' : 'x'
    expect(conflicts).toEqual([{ with: first, resource: 'file:shared', kind: 'write/write' }])
    expect(edges).toEqual([[first, second]])
    expect(view.packages.find((p) => p.id === second)!.added).toEqual([first])
    // Serialised: the second executes only after the first reported.
    expect(seqOf(log, 'executing', second)).toBeGreaterThan(seqOf(log, 'reported', first))
  })

  it('workspace write globs that overlap are serialised by an added edge; disjoint ones are cleared as they are', async () => {
    const plan = [
      { id: 'tree', needs: [], instructions: script('tree done', { writes: ['workspace:src/**'] }, 40) },
      { id: 'leaf', needs: [], instructions: script('leaf done', { writes: ['workspace:src/app.ts'] }, 40) },
      { id: 'docs', needs: [], instructions: script('docs done', { writes: ['workspace:docs/**'] }, 40) },
    ]
    const { id } = await newOrchestration({ plan })
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('completed')
    const log = await decisions(id)
    const refused = log.filter((e) => e.type === 'orchestration.package.refused').map((e) => e.payload as { package: string; conflicts: { with: string; resource: string; kind: string }[]; edges: string[][] })
    expect(refused).toHaveLength(1)
    const [{ package: second, conflicts, edges }] = refused as [(typeof refused)[number]]
    const first = second === 'tree' ? 'leaf' : 'tree'
    expect(conflicts).toEqual([{ with: first, resource: second === 'tree' ? 'workspace:src/**' : 'workspace:src/app.ts', kind: 'write/write' }])
    expect(edges).toEqual([[first, second]])
    expect(seqOf(log, 'executing', second)).toBeGreaterThan(seqOf(log, 'reported', first))
    expect(view.packages.find((p) => p.id === 'docs')!.added).toEqual([])
  })

  it('a package needing a human clearance waits for a holder of role:clearance', async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'h', instructions: script('h done'), clearance: 'human' }] })
    await waitUntil(id, (v) => v.packages[0]!.beat === 'awaiting-human')
    const url = `/v1/orchestrations/${id}/packages/h/clearance`
    const body = JSON.stringify({ decision: 'grant' })
    const noClaim = await api(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(noClaim.status).toBe(403)
    expect((await errorOf(noClaim)).code).toBe('CLEARANCE_CLAIM_REQUIRED')
    const granted = await api(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(await bearer('ada', ['role:clearance'])) }, body })
    expect(granted.status).toBe(200)
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('completed')
    const cleared = (await decisions(id)).find((e) => e.type === 'orchestration.package.cleared')!
    expect(cleared.payload).toMatchObject({ package: 'h', by: 'human' })
    const again = await api(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(await bearer('ada', ['role:clearance'])) }, body })
    expect((await errorOf(again)).code).toBe('NOT_AWAITING_CLEARANCE')
  })
})

describe('human clearance, denied', () => {
  it('a denial fails the package without retry and blocks its dependents with the reason', async () => {
    const plan = [
      { id: 'risky', instructions: script('risky'), clearance: 'human' },
      { id: 'after', needs: ['risky'], instructions: script('after') },
    ]
    const { id } = await newOrchestration({ plan })
    await waitUntil(id, (v) => v.packages[0]!.beat === 'awaiting-human')
    const headers = { 'content-type': 'application/json', ...(await bearer('ada', ['role:clearance'])) }
    const res = await api(`/v1/orchestrations/${id}/packages/risky/clearance`, { method: 'POST', headers, body: JSON.stringify({ decision: 'deny', reason: 'too risky' }) })
    expect(res.status).toBe(200)
    const view = await waitUntil(id, finished)
    expect(view.packages.map((p) => [p.id, p.beat, p.attempts])).toEqual([['risky', 'failed', 1], ['after', 'blocked', 0]])
    expect(view.packages[0]!.reason).toMatch(/^clearance denied by .*#ada: too risky$/)
    expect(view.packages[1]!.reason).toMatch(/^needs risky, which failed: clearance denied/)
  })
})

describe('cancel', () => {
  it('mid-run: each agent stops at its boundary, nothing reports after, the entry is idempotent, and replay gives the same state', async () => {
    const slow = (name: string) => [`/beat declare /tool declare {"writes":["file:${name}"]}`, '/beat execute /slow 100', '/beat execute /tokens 200', `/beat execute /tool report {"result":"${name}"}`].join('\n')
    const plan = [
      { id: 'p', instructions: slow('p') },
      { id: 'q', instructions: slow('q') },
      { id: 'r', needs: ['p'], instructions: slow('r') },
    ]
    const { id } = await newOrchestration({ plan })
    const running = await waitUntil(id, (v) => v.packages.filter((p) => p.beat === 'executing').length === 2)
    const res = await postJson(`/v1/orchestrations/${id}/cancel`, { reason: 'changed my mind' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { cancelled: string[] }).cancelled.sort()).toEqual(['p', 'q', 'r'])
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('cancelled')
    expect(view.packages.map((p) => p.beat)).toEqual(['cancelled', 'cancelled', 'cancelled'])
    // Each running agent's turn was interrupted at its boundary (its session says so durably).
    for (const p of running.packages.filter((p) => p.beat === 'executing')) {
      const name = p.session!
      await expect.poll(async () => (await sessionEvents(name)).some((e) => e.type === 'session.next.interrupted'), { timeout: 10_000 }).toBe(true)
    }
    await new Promise((r) => setTimeout(r, 300))
    const log = await decisions(id)
    expect(log.some((e) => e.type === 'orchestration.package.reported')).toBe(false)
    // Cancel again: nothing left, no second entry.
    expect(await (await postJson(`/v1/orchestrations/${id}/cancel`, {})).json()).toEqual({ cancelled: [], entry: null })
    expect(await decisions(id, 'control')).toHaveLength(1)
    // Replaying the ledger gives the same state (up to the view's sequence: a late burn may follow).
    const live = await env.ORCHESTRATIONS.getByName(id).view(owner)
    const replayed = (await decisions(id)).filter((e) => e.seq <= live.lastSequence).reduce((state, e: Stored) => reduceOrchestration(state, e), emptyOrchestration())
    expect(viewOfOrchestration(id, replayed)).toEqual(live)
  })

  it('cancelling one package leaves the others running; its dependents are blocked and say why', async () => {
    const plan = [
      { id: 'keep', instructions: script('kept', {}, 30) },
      { id: 'drop', instructions: [`/beat declare /tool declare {}`, '/beat execute /slow 100', '/beat execute /tokens 100'].join('\n') },
      { id: 'after', needs: ['drop'], instructions: script('never') },
    ]
    const { id } = await newOrchestration({ plan })
    await waitUntil(id, (v) => v.packages[1]!.beat === 'executing')
    expect((await (await postJson(`/v1/orchestrations/${id}/cancel`, { package: 'drop' })).json()) as unknown).toMatchObject({ cancelled: ['drop'] })
    const view = await waitUntil(id, finished)
    expect(view.packages.map((p) => [p.id, p.beat])).toEqual([['keep', 'reported'], ['drop', 'cancelled'], ['after', 'blocked']])
    expect(view.packages[2]!.reason).toMatch(/^needs drop, which is cancelled/)
    expect(view.status).toBe('failed')
    expect((await errorOf(await postJson(`/v1/orchestrations/${id}/cancel`, { package: 'nope' }))).code).toBe('PACKAGE_NOT_FOUND')
  })
})

describe('recover and budgets', () => {
  it('a failing package is retried with a fresh agent, then failed; its dependents are blocked with the reason', async () => {
    const plan = [
      { id: 'bad', instructions: ['/beat declare /tool declare {}', '/beat execute /fail 400 the work cannot be done'].join('\n') },
      { id: 'next', needs: ['bad'], instructions: script('never') },
    ]
    const { id } = await newOrchestration({ plan, maxAttempts: 2 })
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('failed')
    const [bad, next] = view.packages
    expect(bad).toMatchObject({ beat: 'failed', attempts: 2 })
    expect(next).toMatchObject({ beat: 'blocked' })
    expect(next!.reason).toMatch(/^needs bad, which failed: agent failed/)
    const log = await decisions(id)
    const tokens = log.filter((e) => e.type === 'orchestration.package.assigned').map((e) => (e.payload as { token: string }).token)
    expect(new Set(tokens).size).toBe(2)
    expect(log.filter((e) => e.type === 'orchestration.package.failed').map((e) => (e.payload as { retry: boolean }).retry)).toEqual([true, false])
  })

  it('an agent that never declares times out, is retried with a fresh agent, then fails; the orchestration does not hang', async () => {
    const { id } = await newOrchestration({ plan: [{ id: 'mute', instructions: 'I will not declare anything.' }], maxAttempts: 2, timeoutMs: 1_000 })
    const view = await waitUntil(id, finished, 30_000)
    expect(view.status).toBe('failed')
    expect(view.packages[0]).toMatchObject({ beat: 'failed', attempts: 2 })
    expect(view.packages[0]!.reason).toMatch(/^timed out after 1000 ms in assigned/)
  })

  it('crossing the orchestration token budget stops assignments and cancels running packages with a durable reason', async () => {
    const plan = [
      { id: 'one', instructions: script('one', {}, 20) },
      { id: 'two', needs: ['one'], instructions: script('two') },
    ]
    const { id } = await newOrchestration({ plan, budget: { tokens: 10 } })
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('failed')
    expect(view.reason).toMatch(/^orchestration budget exceeded: \d+ tokens > 10/)
    const log = await decisions(id)
    expect(log.find((e) => e.type === 'orchestration.budget.exceeded')!.payload).toMatchObject({ scope: 'orchestration', limit: 'tokens', cap: 10 })
    expect(log.some((e) => e.type === 'orchestration.package.assigned' && (e.payload as { package: string }).package === 'two')).toBe(false)
  })
})

describe('spawn authority', () => {
  it("an agent's credentials cannot create a session or an orchestration", async () => {
    const agent = await bearer('agent-7', ['role:agent'])
    const json = { 'content-type': 'application/json', ...agent }
    const session = await api('/v1/sessions', { method: 'POST', headers: json, body: '{}' })
    expect(session.status).toBe(403)
    expect((await errorOf(session)).code).toBe('SPAWN_REFUSED')
    const orchestration = await api('/v1/orchestrations', { method: 'POST', headers: json, body: JSON.stringify({ goal: 'g', plan: [{ id: 'a', instructions: 'x' }] }) })
    expect((await errorOf(orchestration)).code).toBe('SPAWN_REFUSED')
  })

  it('an agent has no tool that spawns: trying is a failed call with a code, and the package goes on', async () => {
    const instructions = ['/beat declare /tool create_session {"id":"child"}', '/beat declare /tool declare {}', '/beat execute /tool report {"result":"ok"}'].join('\n')
    const { id } = await newOrchestration({ plan: [{ id: 'a', instructions }] })
    const view = await waitUntil(id, finished)
    expect(view.status).toBe('completed')
    const failed = (await sessionEvents(view.packages[0]!.session!)).find((e) => e.type === 'session.next.tool.failed')!
    expect(failed.payload).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } })
  })
})
