/**
 * An orchestration package names the agent profile its session runs (the plan's `agent`): the
 * session is created with it (its `created` event, its view), it runs in an agent of its own, it
 * is offered the profile's tools and always its package's own (declare, report). A plan naming a
 * profile the owner does not see is refused with UNKNOWN_AGENT before anything is written.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { exists } from '../../objects/directory/keys.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { api, postJson } from '../support/api.ts'
import { decisions, finished, newOrchestration, script, waitUntil } from '../support/orchestration.ts'
import { events as sessionEvents, ownerCaller } from '../support/session.ts'

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error

describe('orchestration packages of an agent profile', () => {
  it("a package's session runs the profile it names, in an agent of its own, offered the profile's tools and its package's", async () => {
    const put = await api('/v1/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agents: { scout: { tools: ['read'], instructions: ['You are Scout.'] } } }) })
    expect(put.status).toBe(200)
    const plan = [
      { id: 'a', instructions: script('a done'), agent: 'scout', expect: { ms: 1 } },
      { id: 'b', needs: ['a'], instructions: script('b done') },
    ]
    const { id } = await newOrchestration({ plan })
    const view = await waitUntil(id, finished, 60_000)
    expect(view.status).toBe('completed')
    const [a, b] = view.packages
    expect([a!.profile, b!.profile]).toEqual(['scout', 'default'])
    // Small enough to run inline, but the shared inline agent runs `default`: its own agent.
    expect(a!.inline).toBeNull()
    expect(await (await api(`/v1/sessions/${a!.session}`)).json()).toMatchObject({ agent: 'scout', title: 'agent for a' })
    expect(await (await api(`/v1/sessions/${b!.session}`)).json()).toMatchObject({ agent: 'default' })
    const log = (await env.SESSIONS.getByName(a!.session!).history(ownerCaller, 0, 1000)).items as Stored[]
    const offered = await Promise.all(
      log.filter((e) => e.type === 'session.next.step.started').map(async (e) => {
        const res = await api(`/v1/sessions/${a!.session}/artifacts/${(e.payload as { tools: string }).tools}`)
        return ((await res.json()) as { name: string }[]).map((spec) => spec.name).sort()
      }),
    )
    expect(offered.length).toBeGreaterThan(0)
    for (const names of offered) expect(names).toEqual(['declare', 'read', 'report'])
  })

  it('a plan naming an unknown profile is 400 UNKNOWN_AGENT, and no orchestration is written', async () => {
    const id = `orch-unknown-agent-${crypto.randomUUID()}`
    const res = await postJson('/v1/orchestrations', { id, goal: 'g', plan: [{ id: 'a', instructions: script('a done'), agent: 'nobody' }] })
    expect(res.status).toBe(400)
    expect(await errorOf(res)).toMatchObject({ code: 'UNKNOWN_AGENT' })
    expect(await exists(env, `orchestration:${id}`)).toBe(false)
    expect((await api(`/v1/orchestrations/${id}`)).status).toBe(404)
  })

  it("the planner's plan naming an unknown profile fails its plan call with UNKNOWN_AGENT, and nothing is planned", async () => {
    const packages = [{ id: 'a', instructions: script('a done'), agent: 'nobody' }]
    const { id } = await newOrchestration({ goal: `Ship it.\n/beat plan /tool plan ${JSON.stringify({ packages })}` })
    const planner = (await waitUntil(id, (v) => v.planner !== null)).planner!
    await expect
      .poll(async () => (await sessionEvents(planner)).find((e) => e.type === 'session.next.tool.failed')?.payload, { timeout: 10_000 })
      .toMatchObject({ error: { code: 'UNKNOWN_AGENT' } })
    expect((await decisions(id)).some((e) => e.type === 'orchestration.planned')).toBe(false)
    expect((await postJson(`/v1/orchestrations/${id}/cancel`, { reason: 'bad plan' })).status).toBe(200)
    expect((await waitUntil(id, finished)).status).toBe('cancelled')
  })
})
