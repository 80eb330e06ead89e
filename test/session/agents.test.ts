/**
 * Sessions of an agent profile (objects/agents/, objects/session/wiring/session-profile.ts), through
 * the real gate and the real SessionObject on the local model: a profile from the principal's
 * config decides which tools the model is offered (the whole offer, whatever registered it), the
 * step limit, the instructions, the skills, the starting model and the permission layer; a change
 * of the profile reaches its sessions at the next turn boundary; the agent survives in the
 * `created` event and forks inherit it; an unknown agent is refused before anything is written.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { exists } from '../../objects/directory/keys.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { idOf } from '../support/auth.ts'
import { api, newSession, postJson, waitIdle } from '../support/session.ts'

const json = { 'content-type': 'application/json' }
const putConfig = (body: unknown, as: string) => api('/v1/config', { method: 'PUT', headers: json, body: JSON.stringify(body) }, as)
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error

/** Every durable event of the session, read as `as`. */
async function historyOf(id: string, as: string): Promise<Stored[]> {
  const stub = env.SESSIONS.getByName(id)
  const all: Stored[] = []
  for (let after: number | null = 0; after !== null; ) {
    const page = await stub.history({ id: idOf(as), claims: [] }, after, 1000)
    all.push(...(page.items as Stored[]))
    after = page.next
  }
  return all
}

const payloadsOf = (log: Stored[], type: string) => log.filter((e) => e.type === `session.next.${type}`).map((e) => e.payload as Record<string, unknown>)

/** The JSON of an artifact of the session (the offered tool specs of a step, an epoch's baseline). */
async function artifact<T>(id: string, ref: string, as: string): Promise<T> {
  const res = await api(`/v1/sessions/${id}/artifacts/${ref}`, {}, as)
  expect(res.status).toBe(200)
  return (await res.json()) as T
}

/** The tool names each step of the session was offered, in order. */
async function offeredPerStep(id: string, as: string): Promise<string[][]> {
  const steps = payloadsOf(await historyOf(id, as), 'step.started')
  return Promise.all(steps.map(async (step) => (await artifact<{ name: string }[]>(id, step.tools as string, as)).map((spec) => spec.name)))
}

async function prompt(id: string, text: string, as: string): Promise<void> {
  expect((await postJson(`/v1/sessions/${id}/prompt`, { text }, as)).status).toBe(202)
  await waitIdle(id, 20_000, as)
}

describe('sessions of an agent profile', () => {
  it("a config profile's tools, step limit, instructions and permission apply from the first turn", async () => {
    const as = 'agent-cleo'
    const calc = { tools: ['calculator', 'wri*'], maxSteps: 1, instructions: ['You are Calc; answer with numbers.'], permission: { rules: [{ tool: 'write', action: 'allow' }] } }
    expect((await putConfig({ agents: { calc } }, as)).status).toBe(200)
    const { id } = await newSession('agent-calc', as, { agent: 'calc' })
    expect(await (await api(`/v1/sessions/${id}`, {}, as)).json()).toMatchObject({ agent: 'calc', model: 'local/echo-1' })

    await prompt(id, '/tool write {"path":"notes.txt","content":"42"}\n/tool calculator {"expression":"6*7"}', as)
    const log = await historyOf(id, as)
    // Offered only what the profile names, of every tool the session has.
    expect(await offeredPerStep(id, as)).toEqual([['calculator', 'write']])
    // `write` asks by default; the profile's layer allows it, so it ran with no permission request.
    expect(payloadsOf(log, 'permission.requested')).toEqual([])
    expect(payloadsOf(log, 'tool.succeeded').map((p) => p.toolCallId)).toHaveLength(2)
    expect(new TextDecoder().decode(await (await api(`/v1/sessions/${id}/workspace/file?path=notes.txt`, {}, as)).arrayBuffer())).toBe('42')
    // One provider turn per prompt: the turn after the calls is refused as the limit.
    expect(payloadsOf(log, 'halted')).toEqual([{ reason: 'turn-limit', limit: 1 }])
    // Told from the first epoch's baseline, not later.
    const [epoch] = payloadsOf(log, 'epoch.started')
    const baseline = await artifact<{ sources: Record<string, unknown> }>(id, epoch!.baseline as string, as)
    expect(baseline.sources['agent.instructions']).toBe('You are Calc; answer with numbers.')
  })

  it("a profile's change reaches its sessions at the next turn boundary, as a context change and a new offer", async () => {
    const as = 'agent-dora'
    expect((await putConfig({ agents: { helper: { tools: ['calculator'], instructions: ['Be brief.'] } } }, as)).status).toBe(200)
    const { id } = await newSession('agent-change', as, { agent: 'helper' })
    await prompt(id, 'first', as)
    expect((await putConfig({ agents: { helper: { tools: ['calculator', 'wait'], instructions: ['Be thorough.'] } } }, as)).status).toBe(200)
    await prompt(id, 'second', as)
    const log = await historyOf(id, as)
    expect(payloadsOf(log, 'context.changed').map((p) => (p.values as Record<string, unknown>)['agent.instructions'])).toContain('Be thorough.')
    expect(await offeredPerStep(id, as)).toEqual([['calculator'], ['calculator', 'wait']])
  })

  it("a principal's `default` overrides Neuron's own for sessions created without an agent; forks inherit the agent", async () => {
    const as = 'agent-emil'
    expect((await putConfig({ agents: { default: { tools: ['calculator'] }, solo: { tools: [] } } }, as)).status).toBe(200)
    const { id } = await newSession('agent-default', as)
    await prompt(id, 'hello', as)
    expect(await (await api(`/v1/sessions/${id}`, {}, as)).json()).toMatchObject({ agent: 'default' })
    expect(await offeredPerStep(id, as)).toEqual([['calculator']])

    const { id: solo } = await newSession('agent-solo', as, { agent: 'solo' })
    await prompt(solo, 'hello', as)
    const created = (await historyOf(solo, as)).find((e) => e.type === 'session.next.created')!
    expect(created.payload).toMatchObject({ agent: 'solo' })
    const fork = await postJson(`/v1/sessions/${solo}/fork`, { at: created.seq + 1, id: `${solo}-fork` }, as)
    expect(fork.status).toBe(201)
    expect(await fork.json()).toMatchObject({ agent: 'solo' })
    await prompt(`${solo}-fork`, 'again', as)
    expect(await offeredPerStep(`${solo}-fork`, as)).toEqual([[]])
  })

  it("a profile's skills join its principal's: indexed for the model and loaded by the skill tool", async () => {
    const as = 'agent-ivo'
    const deploy = { name: 'deploy', description: 'How we deploy', body: 'Run npm run deploy, then check /health.' }
    expect((await putConfig({ skills: [{ name: 'style', description: 'House style', body: 'Short sentences.' }], agents: { ops: { skills: [deploy] } } }, as)).status).toBe(200)
    const { id } = await newSession('agent-skills', as, { agent: 'ops' })
    await prompt(id, '/tool skill {"name":"deploy"}', as)
    const log = await historyOf(id, as)
    expect(String(payloadsOf(log, 'tool.succeeded')[0]!.content)).toContain('Run npm run deploy')
    const indexed = [...payloadsOf(log, 'context.changed').map((p) => (p.values as Record<string, unknown>)['skills.index'])]
    const [epoch] = payloadsOf(log, 'epoch.started')
    indexed.push((await artifact<{ sources: Record<string, unknown> }>(id, epoch!.baseline as string, as)).sources['skills.index'])
    const seen = JSON.stringify(indexed)
    // The index is an asynchronous source: it may arrive at the first boundary or the next.
    if (!seen.includes('deploy')) {
      await prompt(id, 'again', as)
      indexed.push(...payloadsOf(await historyOf(id, as), 'context.changed').map((p) => (p.values as Record<string, unknown>)['skills.index']))
    }
    expect(JSON.stringify(indexed)).toContain('deploy')
    expect(JSON.stringify(indexed)).toContain('style')
  })

  it("a session of a profile starts on its model unless the request names one; a profile's unknown model is refused like the request's", async () => {
    const as = 'agent-jon'
    expect((await putConfig({ agents: { small: { model: 'local/echo-small' }, broken: { model: 'nowhere/none' } } }, as)).status).toBe(200)
    const { id } = await newSession('agent-model', as, { agent: 'small' })
    expect(await (await api(`/v1/sessions/${id}`, {}, as)).json()).toMatchObject({ agent: 'small', model: 'local/echo-small' })
    const { id: chosen } = await newSession('agent-model-chosen', as, { agent: 'small', model: 'local/echo-1' })
    expect(await (await api(`/v1/sessions/${chosen}`, {}, as)).json()).toMatchObject({ agent: 'small', model: 'local/echo-1' })
    const broken = await postJson('/v1/sessions', { id: `agent-broken-${crypto.randomUUID()}`, agent: 'broken' }, as)
    expect(broken.status).toBe(400)
    expect((await errorOf(broken)).code).toBe('UNKNOWN_MODEL')
  })

  it('an unknown agent is 400 UNKNOWN_AGENT naming the known ones, and nothing is written: no directory entry, no listing, no session', async () => {
    const as = 'agent-finn'
    const id = `agent-unknown-${crypto.randomUUID()}`
    const res = await postJson('/v1/sessions', { id, agent: 'nobody' }, as)
    expect(res.status).toBe(400)
    const error = await errorOf(res)
    expect(error.code).toBe('UNKNOWN_AGENT')
    expect(error.message).toMatch(/default/)
    expect(await exists(env, `session:${id}`)).toBe(false)
    expect(await errorOf(await api(`/v1/sessions/${id}`, {}, as))).toMatchObject({ code: 'SESSION_NOT_FOUND' })
    expect(((await (await api('/v1/sessions', {}, as)).json()) as { items: unknown[] }).items).toEqual([])
    // A malformed name is refused by the schema, as any field is.
    expect(await errorOf(await postJson('/v1/sessions', { id, agent: 'Not A Name' }, as))).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await exists(env, `session:${id}`)).toBe(false)
  })

  it('GET /v1/agents lists the profiles the caller sees, merged, with their sources', async () => {
    const as = 'agent-gus'
    expect((await putConfig({ agents: { default: { maxSteps: 4 }, reviewer: { description: 'Reads, never writes', tools: ['read', 'grep', 'glob'] } } }, as)).status).toBe(200)
    const listed = (await (await api('/v1/agents', {}, as)).json()) as { items: { name: string; source: string; layers: string[]; profile: Record<string, unknown> }[] }
    expect(listed.items.map(({ name, source, layers }) => ({ name, source, layers }))).toEqual([
      { name: 'default', source: 'config', layers: ['builtin', 'config'] },
      { name: 'reviewer', source: 'config', layers: ['config'] },
    ])
    // Field by field: the builtin's description stays, the config's step limit is laid over it.
    expect(listed.items[0]!.profile).toMatchObject({ maxSteps: 4, description: expect.stringContaining('default agent') })
    // Another principal sees only Neuron's own.
    const other = (await (await api('/v1/agents', {}, 'agent-hal')).json()) as { items: { name: string; source: string }[] }
    expect(other.items.map(({ name, source }) => [name, source])).toEqual([['default', 'builtin']])
  })
})
