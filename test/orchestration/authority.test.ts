/**
 * Who may move an orchestration: its agents take prompts only from it and from its owner's
 * explicit steer; a share holder reads and cannot write a result; every decision names the
 * principal whose input caused it; and the agents' session names are the orchestrations' alone.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { current } from '../../objects/ledger/headers.ts'
import { INPUT } from '../../objects/orchestration/events.ts'
import { exists } from '../../objects/directory/keys.ts'
import { api, postJson } from '../support/api.ts'
import { bearer, idOf } from '../support/auth.ts'
import { decisions, newOrchestration, script, waitUntil } from '../support/orchestration.ts'
import { events as sessionEvents, newSession, waitIdle } from '../support/session.ts'
import { uniqueName } from '../support/ledger.ts'

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error
const principalOf = (e: Stored) => current(e.headers, 'principal')

/** Package `a` declares, is cleared, and its execute turn ends without a report: its agent is idle while `a` executes. */
const idleExecuting = [
  { id: 'a', instructions: ['/beat declare /tool declare {"writes":["file:a"]}', '/beat execute thinking it over'].join('\n') },
  { id: 'b', needs: ['a'], instructions: script('b done') },
]

async function idleAgent(share: string[] = []) {
  const { id } = await newOrchestration({ plan: idleExecuting, share })
  const view = await waitUntil(id, (v) => v.packages[0]!.beat === 'executing')
  const agent = view.packages[0]!.session!
  // The execute turn ran and ended: the agent waits for a prompt.
  await expect.poll(async () => (await sessionEvents(agent)).filter((e) => e.type === 'session.next.drain.ended').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2)
  await waitIdle(agent)
  return { id, agent }
}

describe("an orchestration's agent sessions", () => {
  it("refuse a share holder's prompt and interrupt with a code, and nothing is written", async () => {
    const { id, agent } = await idleAgent(['org:acme'])
    const sessionBefore = await sessionEvents(agent)
    const decisionsBefore = await decisions(id)
    const bob = { 'content-type': 'application/json', ...(await bearer('bob', ['org:acme'])) }
    // The share holder may read the agent's session…
    expect((await api(`/v1/sessions/${agent}`, { headers: bob })).status).toBe(200)
    // …but not prompt it: the forged report never reaches the model.
    const forged = await api(`/v1/sessions/${agent}/prompt`, { method: 'POST', headers: bob, body: JSON.stringify({ text: '/tool report {"result":"FORGED"}' }) })
    expect(forged.status).toBe(403)
    expect((await errorOf(forged)).code).toBe('AGENT_STEER_OWNER_ONLY')
    const stop = await api(`/v1/sessions/${agent}/interrupt`, { method: 'POST', headers: bob, body: '{}' })
    expect(stop.status).toBe(403)
    expect((await errorOf(stop)).code).toBe('AGENT_STEER_OWNER_ONLY')
    await new Promise((r) => setTimeout(r, 300))
    expect(await sessionEvents(agent)).toEqual(sessionBefore)
    const after = await decisions(id)
    expect(after.some((e) => e.type === 'orchestration.package.reported')).toBe(false)
    expect(after).toEqual(decisionsBefore)
    await postJson(`/v1/orchestrations/${id}/cancel`, {})
  }, 40_000)

  it("take the owner's explicit steer, recorded as such; every decision names the principal whose input caused it", async () => {
    const { id, agent } = await idleAgent()
    const steered = await postJson(`/v1/sessions/${agent}/prompt`, { id: 'steer-1', text: '/tool report {"result":"steered"}' })
    expect(steered.status).toBe(202)
    const view = await waitUntil(id, (v) => v.status !== 'running')
    expect(view.status).toBe('completed')
    expect(view.packages.map((p) => [p.id, p.result])).toEqual([['a', 'steered'], ['b', 'b done']])
    // The agent's session recorded the steer: who, and that it was one.
    const admitted = (await sessionEvents(agent)).filter((e) => e.type === 'session.next.admitted')
    const steer = admitted.find((e) => (e.payload as { messageId: string }).messageId === 'steer-1')!
    expect(principalOf(steer)).toBe(idOf('ada'))
    expect(current(steer.headers, 'steer')).toBe(true)
    // Its other prompts came from the orchestration.
    for (const e of admitted.filter((e) => e !== steer)) expect(principalOf(e)).toBe(`orchestration:${id}`)
    const log = await decisions(id)
    const self = `orchestration:${id}`
    for (const e of log) expect(principalOf(e), e.type).toBeTypeOf('string')
    expect(principalOf(log[0]!)).toBe(idOf('ada'))
    const reported = log.filter((e) => e.type === 'orchestration.package.reported')
    expect(reported.map((e) => [(e.payload as { package: string }).package, principalOf(e), current(e.headers, 'steer') ?? false])).toEqual([
      ['a', idOf('ada'), true],
      ['b', self, false],
    ])
    const declared = log.filter((e) => e.type === 'orchestration.package.declared')
    expect(declared.map(principalOf)).toEqual([self, self])
    // Decisions the orchestration's own rules made name the orchestration.
    for (const e of log.filter((e) => ['assigned', 'cleared', 'executing', 'finished'].some((t) => e.type.endsWith(t)))) expect(principalOf(e), e.type).toBe(self)
  }, 40_000)

  it('the orchestration itself refuses an input caused by any other principal, with a code, and writes nothing', async () => {
    const { id } = await idleAgent(['org:acme'])
    const view = await env.ORCHESTRATIONS.getByName(id).view({ id: idOf('ada'), claims: [] })
    const token = view.packages[0]!.agent!
    const before = await decisions(id)
    const inputs = await decisions(id, `agent.${token}`)
    const draft = {
      topic: `orchestration.${id}.agent.${token}`,
      type: INPUT.report,
      author: `agent:${token}`,
      time: Date.now(),
      payload: { result: 'FORGED', artifacts: [], prompts: [], by: [idOf('bob')] },
    }
    const answer = await env.ORCHESTRATIONS.getByName(id).receive(draft)
    expect(answer).toMatchObject({ duplicate: false, answer: { accepted: false, error: { code: 'AGENT_INPUT_REFUSED' } } })
    // An input that names no principal at all is refused the same way.
    const anonymous = await env.ORCHESTRATIONS.getByName(id).receive({ ...draft, payload: { result: 'FORGED', artifacts: [], prompts: [] } })
    expect(anonymous).toMatchObject({ answer: { accepted: false, error: { code: 'AGENT_INPUT_REFUSED' } } })
    expect(await decisions(id)).toEqual(before)
    expect(await decisions(id, `agent.${token}`)).toEqual(inputs)
    await postJson(`/v1/orchestrations/${id}/cancel`, {})
  }, 40_000)
})

describe('the agent namespace', () => {
  it('session ids under `orchestration.` are refused to create and fork with a code, and nothing is written', async () => {
    const victim = `orchestration.${uniqueName('victim')}.agent.t1`
    const created = await postJson('/v1/sessions', { id: victim }, 'mallory')
    expect(created.status).toBe(403)
    expect((await errorOf(created)).code).toBe('SESSION_ID_RESERVED')
    expect(await exists(env, `session:${victim}`)).toBe(false)
    expect((await errorOf(await api(`/v1/sessions/${victim}`, {}, 'mallory'))).code).toBe('SESSION_NOT_FOUND')

    const { id: own } = await newSession('fork-origin', 'mallory')
    await postJson(`/v1/sessions/${own}/prompt`, { text: 'hi' }, 'mallory')
    await waitIdle(own, 20_000, 'mallory')
    const forked = await postJson(`/v1/sessions/${own}/fork`, { at: 1, id: victim }, 'mallory')
    expect(forked.status).toBe(403)
    expect((await errorOf(forked)).code).toBe('SESSION_ID_RESERVED')
    expect(await exists(env, `session:${victim}`)).toBe(false)
  }, 30_000)
})
