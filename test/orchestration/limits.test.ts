/**
 * What an orchestration is composed with and bounded by: its create answers before any decision,
 * its agents' model resolves through the owner's stored provider keys exactly as a session's
 * does, and a human clearance that never comes ends the package at a documented deadline instead
 * of keeping the orchestration alive.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { CLEARANCE_TIMEOUT_MS } from '../../objects/core/limits.ts'
import { api, postJson } from '../support/api.ts'
import { bearer, idOf } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'
import { decisions, finished, newOrchestration, script, waitUntil } from '../support/orchestration.ts'

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error
const MODEL = 'anthropic/claude-sonnet-4-5'

describe('a create', () => {
  it('answers before any decision: its step records only `created`; a wide plan is assigned on later turns, each package once', async () => {
    const plan = Array.from({ length: 40 }, (_, i) => ({ id: `w${i}`, instructions: script(`w${i} done`) }))
    const { id, view } = await newOrchestration({ plan })
    expect(view.lastSequence).toBe(1)
    expect(view.packages.every((p) => p.beat === 'waiting' && p.agent === null)).toBe(true)
    const done = await waitUntil(id, finished, 60_000)
    expect(done.status).toBe('completed')
    const assigned = (await decisions(id)).filter((e) => e.type === 'orchestration.package.assigned').map((e) => (e.payload as { package: string }).package)
    expect(assigned.sort()).toEqual(plan.map((p) => p.id).sort())
  }, 90_000)
})

describe("the owner's stored provider key", () => {
  it('serves an orchestration and its agents as it serves a session on the same model', async () => {
    const who = `orch-key-${crypto.randomUUID()}`
    const stored = await api('/v1/config/credentials/anthropic', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: 'sk-ant-stored-0123456789abcdef' }) }, who)
    expect(stored.status).toBe(200)
    expect((await postJson('/v1/sessions', { id: uniqueName('keyed'), model: MODEL }, who)).status).toBe(201)

    const id = uniqueName('keyed-orch')
    const created = await postJson('/v1/orchestrations', { id, goal: 'g', model: MODEL, plan: [{ id: 'a', instructions: 'x' }] }, who)
    expect(created.status, await created.clone().text()).toBe(201)
    // The agent session is created on the same provider: its model resolved through the owner's key.
    const stub = env.ORCHESTRATIONS.getByName(id)
    const caller = { id: idOf(who), claims: [] }
    let session: string | null = null
    await expect.poll(async () => (session = (await stub.view(caller)).packages[0]!.session), { timeout: 10_000 }).not.toBeNull()
    await expect.poll(async () => (await api(`/v1/sessions/${session}`, {}, who)).status, { timeout: 10_000 }).toBe(200)
    expect(await (await api(`/v1/sessions/${session}`, {}, who)).json()).toMatchObject({ model: MODEL })
    await postJson(`/v1/orchestrations/${id}/cancel`, {}, who)
  }, 30_000)

  it('without an env key or a stored one the create is refused with a code, and nothing is created', async () => {
    const who = `orch-nokey-${crypto.randomUUID()}`
    const id = uniqueName('unkeyed-orch')
    const res = await postJson('/v1/orchestrations', { id, goal: 'g', model: MODEL, plan: [{ id: 'a', instructions: 'x' }] }, who)
    expect(res.status).toBe(400)
    expect((await errorOf(res)).code).toBe('PROVIDER_NOT_CONFIGURED')
    expect((await errorOf(await api(`/v1/orchestrations/${id}`, {}, who))).code).toBe('ORCHESTRATION_NOT_FOUND')
  })
})

describe('a human clearance deadline', () => {
  it('fails the waiting package with a code when no human decides in time; its dependents are blocked and the orchestration ends', async () => {
    const plan = [
      { id: 'h', instructions: script('h done'), clearance: 'human' },
      { id: 'after', needs: ['h'], instructions: script('after done') },
    ]
    const { id } = await newOrchestration({ plan, clearanceTimeoutMs: 1_000 })
    await waitUntil(id, (v) => v.packages[0]!.beat === 'awaiting-human')
    const view = await waitUntil(id, finished, 30_000)
    expect(view.status).toBe('failed')
    expect(view.packages.map((p) => [p.id, p.beat])).toEqual([['h', 'failed'], ['after', 'blocked']])
    expect(view.packages[0]!.reason).toBe('no human clearance within 1000 ms')
    const failed = (await decisions(id)).find((e) => e.type === 'orchestration.package.failed')!
    expect(failed.payload).toMatchObject({ package: 'h', code: 'CLEARANCE_EXPIRED', retry: false })
    // Final: a late grant is refused, and nothing more is decided.
    const clearer = { 'content-type': 'application/json', ...(await bearer('ada', ['role:clearance'])) }
    const late = await api(`/v1/orchestrations/${id}/packages/h/clearance`, { method: 'POST', headers: clearer, body: JSON.stringify({ decision: 'grant' }) })
    expect(late.status).toBe(409)
    expect((await errorOf(late)).code).toBe('NOT_AWAITING_CLEARANCE')
  }, 40_000)

  it('defaults to the limit, which also bounds it; a deadline outside its bounds is a 400 that creates nothing', async () => {
    const { view } = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    const created = (await decisions(view.id))[0]!
    expect(created.payload).toMatchObject({ clearanceTimeoutMs: CLEARANCE_TIMEOUT_MS })
    for (const clearanceTimeoutMs of [0, 999, CLEARANCE_TIMEOUT_MS + 1, 'soon']) {
      const id = uniqueName('bad-deadline')
      const res = await postJson('/v1/orchestrations', { id, goal: 'g', plan: [{ id: 'a', instructions: 'x' }], clearanceTimeoutMs })
      expect(res.status).toBe(400)
      expect((await errorOf(res)).code).toBe('INVALID_REQUEST')
      expect((await errorOf(await api(`/v1/orchestrations/${id}`))).code).toBe('ORCHESTRATION_NOT_FOUND')
    }
    await waitUntil(view.id, finished)
  })
})
