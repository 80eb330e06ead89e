import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { MEMORY_NODE } from '../../objects/graph/memory.ts'
import { exists } from '../../objects/directory/keys.ts'
import { pinnedMemories } from '../../objects/graph/pinned.ts'
import { api } from '../support/api.ts'
import { bearer, idOf } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'
import { newSession, postJson, waitIdle } from '../support/session.ts'

type Recalled = { address: string; text: string; sources: string[]; type: string }

/** A request as `sub` holding `claims`, through the real gate. */
async function as(sub: string, claims: string[], path: string, body?: unknown): Promise<Response> {
  const init: RequestInit = { headers: { ...(await bearer(sub, claims)), 'content-type': 'application/json' } }
  if (body !== undefined) Object.assign(init, { method: 'POST', body: JSON.stringify(body) })
  return api(path, init, sub)
}

async function recall(sub: string, query: string, claims: string[] = [], scope = ''): Promise<Recalled[]> {
  const res = await as(sub, claims, `/v1/memory/recall${scope}`, { query })
  expect(res.status).toBe(200)
  return ((await res.json()) as { items: Recalled[] }).items
}

/** The content of the last successful tool call in a session (read as its owner). */
async function lastToolResult(id: string, owner = 'ada'): Promise<string> {
  const page = await env.SESSIONS.getByName(id).history({ id: idOf(owner), claims: [] }, 0, 1000)
  const done = page.items.filter((e) => e.type === 'session.next.tool.succeeded')
  return (done.at(-1)!.payload as { content: string }).content
}

describe('memory across sessions', () => {
  it('session A remembers, session B of the same principal recalls it with its source; principal C does not', async () => {
    const fact = `the ${uniqueName('deploy')} window is Thursday afternoon`
    const a = await newSession('mem-a')
    await postJson(`/v1/sessions/${a.id}/prompt`, { text: `/tool memory_remember ${JSON.stringify({ text: fact })}` })
    await waitIdle(a.id)
    expect(JSON.parse(await lastToolResult(a.id))).toMatchObject({ duplicate: false, address: expect.stringMatching(/^node\.knowledge\./) })

    // A new session (context death of the first is irrelevant): it recalls through the tool.
    const b = await newSession('mem-b')
    await postJson(`/v1/sessions/${b.id}/prompt`, { text: '/tool memory_recall {"query":"when is the deploy window"}' })
    await waitIdle(b.id)
    const recalled = JSON.parse(await lastToolResult(b.id)) as { memories: Recalled[] }
    expect(recalled.memories[0]).toMatchObject({ text: fact, sources: [`node.conversation.${a.id}`] })

    // Over HTTP too, for the same principal; never for another.
    expect((await recall('ada', 'deploy window'))[0]).toMatchObject({ text: fact })
    expect(await recall('cyd', 'deploy window')).toEqual([])
    const c = await newSession('mem-c', 'cyd')
    await postJson(`/v1/sessions/${c.id}/prompt`, { text: '/tool memory_recall {"query":"deploy window"}' }, 'cyd')
    await waitIdle(c.id, 20_000, 'cyd')
    expect(JSON.parse(await lastToolResult(c.id, 'cyd'))).toEqual({ memories: [] })
  })

  it('an org memory is shared by claim: readable and writable only with it, and never mixed into own recall', async () => {
    const fact = `acme ${uniqueName('vpn')} rotates keys every ninety days`
    const denied = await as('cyd', [], '/v1/memory/remember?scope=org:acme', { text: fact })
    expect(denied.status).toBe(403)
    expect(await denied.json()).toMatchObject({ error: { code: 'CLAIM_REQUIRED', details: { claim: 'org:acme' } } })

    const wrote = await as('ada', ['org:acme'], '/v1/memory/remember?scope=org:acme', { text: fact })
    expect(wrote.status).toBe(201)
    expect((await recall('bob', 'vpn keys rotate', ['org:acme'], '?scope=org:acme'))[0]).toMatchObject({ text: fact })
    expect((await as('cyd', ['org:other'], '/v1/memory/recall?scope=org:acme', { query: 'vpn' })).status).toBe(403)
    // The org's memory is not the principal's own: neither ada nor bob recalls it without the scope.
    expect(await recall('ada', 'vpn keys rotate', ['org:acme'])).toEqual([])
    expect(await recall('bob', 'vpn keys rotate', ['org:acme'])).toEqual([])
  })
})

describe('forgetting', () => {
  it('forget prunes with a reason: recall stops returning it, the memory node history keeps it', async () => {
    const sub = uniqueName('forgetter')
    const res = await as(sub, [], '/v1/memory/remember', { text: 'the staging password hint is the cat' })
    const remembered = (await res.json()) as Recalled & { edge: string }
    expect((await recall(sub, 'staging password'))[0]).toMatchObject({ address: remembered.address })

    const forgot = await as(sub, [], '/v1/memory/forget', { address: remembered.address, reason: 'the user asked to forget it' })
    expect(forgot.status).toBe(200)
    expect(await recall(sub, 'staging password')).toEqual([])

    const node = (await (await as(sub, [], `/v1/graph/nodes/${MEMORY_NODE}`)).json()) as { current: unknown[]; history: { target: string; retired: { how: string; reason: string } | null }[] }
    expect(node.current).toEqual([])
    expect(node.history).toEqual([expect.objectContaining({ target: remembered.address, retired: expect.objectContaining({ how: 'pruned', reason: 'the user asked to forget it' }) })])
    // Forgetting twice is a clear error, and remembering again is a new memory.
    expect(await (await as(sub, [], '/v1/memory/forget', { address: remembered.address, reason: 'again' })).json()).toMatchObject({ error: { code: 'UNKNOWN_MEMORY' } })
    expect((await as(sub, [], '/v1/memory/remember', { text: 'the staging password hint is the cat' })).status).toBe(201)
  })

  it('forget with a replacement supersedes: recall returns the correction, both nodes stay readable', async () => {
    const sub = uniqueName('corrector')
    const old = (await (await as(sub, [], '/v1/memory/remember', { text: 'standup is at nine' })).json()) as Recalled
    const res = await as(sub, [], '/v1/memory/forget', { address: old.address, reason: 'moved', replacement: 'standup is at ten' })
    const { replacement } = (await res.json()) as { replacement: Recalled }
    expect((await recall(sub, 'standup')).map((m) => m.text)).toEqual(['standup is at ten'])
    const oldNode = (await (await as(sub, [], `/v1/graph/nodes/${old.address}`)).json()) as { node: { text: string }; supersededBy: string[] }
    expect(oldNode).toMatchObject({ node: { text: 'standup is at nine' }, supersededBy: [replacement.address] })
  })
})

describe('pinned memories', () => {
  it('are offered as the memory.pinned value, and pinning outranks remembering', async () => {
    const sub = uniqueName('pinner')
    await as(sub, [], '/v1/memory/remember', { text: 'reports use metric units, remembered' })
    await as(sub, [], '/v1/memory/remember', { text: 'reports use metric units, pinned', pinned: true })
    expect((await recall(sub, 'metric units')).map((m) => m.type)).toEqual(['pins', 'remembers'])
    const pinned = await pinnedMemories(env, { id: idOf(sub), claims: [] })
    expect(pinned).toEqual([{ address: expect.stringMatching(/^node\.knowledge\./), text: 'reports use metric units, pinned' }])
    expect(await (await as(sub, [], '/v1/memory/pinned')).json()).toEqual({ items: [expect.objectContaining({ text: 'reports use metric units, pinned' })] })
  })
})

describe('pinned memories in a session', () => {
  it("a real session tells its model the owner's pinned memories as memory.pinned, and a new pin at the next boundary", async () => {
    const sub = uniqueName('pinned-session')
    await as(sub, [], '/v1/memory/remember', { text: 'answer in metric units', pinned: true })
    const { id } = await newSession('pinned', sub)
    const told = async () => {
      const page = await env.SESSIONS.getByName(id).history({ id: idOf(sub), claims: [] }, 0, 1000)
      return page.items.flatMap((e) => (e.type === 'session.next.context.changed' ? [(e.payload as { values: Record<string, unknown> }).values['memory.pinned']] : [])).filter((v) => v !== undefined)
    }
    // The source loads without blocking a turn: its value reaches the model at a boundary after it arrived.
    for (let turn = 0; turn < 5 && (await told()).length === 0; turn++) {
      await postJson(`/v1/sessions/${id}/prompt`, { text: `turn ${turn}` }, sub)
      await waitIdle(id, 20_000, sub)
    }
    expect(await told()).toEqual([[{ address: expect.stringMatching(/^node\.knowledge\./), text: 'answer in metric units' }]])
    await as(sub, [], '/v1/memory/remember', { text: 'dates are ISO 8601', pinned: true })
    for (let turn = 0; turn < 5 && (await told()).length === 1; turn++) {
      await postJson(`/v1/sessions/${id}/prompt`, { text: `later ${turn}` }, sub)
      await waitIdle(id, 20_000, sub)
    }
    expect(((await told()).at(-1) as { text: string }[]).map((m) => m.text)).toEqual(['answer in metric units', 'dates are ISO 8601'])
  })
})

describe('reads of a graph never written', () => {
  it('answer empty or not found and leave nothing behind', async () => {
    const sub = uniqueName('reader')
    expect(await recall(sub, 'anything')).toEqual([])
    expect(await (await as(sub, [], '/v1/memory/pinned')).json()).toEqual({ items: [] })
    expect((await as(sub, [], `/v1/graph/nodes/${MEMORY_NODE}`)).status).toBe(404)
    expect((await as(sub, [], '/v1/memory/forget', { address: 'node.knowledge.x', reason: 'r' })).status).toBe(404)
    expect(await exists(env, `graph:principal:${idOf(sub)}`)).toBe(false)
    expect((await as(sub, [], '/v1/memory/remember', { text: 'now it exists' })).status).toBe(201)
    expect(await exists(env, `graph:principal:${idOf(sub)}`)).toBe(true)
  })
})

describe('bad input gets its code', () => {
  const table: [string, () => Promise<Response>, number, string][] = [
    ['oversize memory text', () => as('ada', [], '/v1/memory/remember', { text: 'x'.repeat(16 * 1024 + 1) }), 413, 'TEXT_TOO_LARGE'],
    ['a query with no words', () => as('ada', [], '/v1/memory/recall', { query: '?!' }), 400, 'EMPTY_QUERY'],
    ['regards an unknown node', () => as('ada', [], '/v1/memory/remember', { text: 'x', regards: ['node.turn.nope'] }), 404, 'UNKNOWN_NODE'],
    ['a bad address', () => as('ada', [], '/v1/graph/nodes/not-an-address'), 400, 'INVALID_ADDRESS'],
    ['a bad scope', () => as('ada', [], '/v1/memory/pinned?scope=acme'), 400, 'INVALID_QUERY'],
    ['an unknown node', () => as('ada', [], '/v1/graph/nodes/node.turn.nope'), 404, 'UNKNOWN_NODE'],
    ['an edge from an unknown node', () => as('ada', [], '/v1/graph/edges', { source: 'node.turn.nope', target: 'node.turn.nada', type: 'follows' }), 404, 'UNKNOWN_NODE'],
    ['an edge type of the wrong shape', () => as('ada', [], '/v1/graph/edges', { source: 'node.turn.a', target: 'node.turn.b', type: 'Follows!' }), 400, 'INVALID_REQUEST'],
  ]
  for (const [name, request, status, code] of table) {
    it(`${name} → ${status} ${code}`, async () => {
      const res = await request()
      expect(res.status).toBe(status)
      expect(await res.json()).toMatchObject({ error: { code } })
    })
  }

  it('self-edges and cycles are refused over HTTP where the type forbids them', async () => {
    const sub = uniqueName('edges')
    for (const id of ['a', 'b']) expect((await as(sub, [], '/v1/graph/nodes', { kind: 'backlog-item', id, text: id })).status).toBe(201)
    const self = await as(sub, [], '/v1/graph/edges', { source: 'node.backlog-item.a', target: 'node.backlog-item.a', type: 'blocked-by' })
    expect(await self.json()).toMatchObject({ error: { code: 'SELF_EDGE' } })
    expect((await as(sub, [], '/v1/graph/edges', { source: 'node.backlog-item.a', target: 'node.backlog-item.b', type: 'blocked-by' })).status).toBe(201)
    const cycle = await as(sub, [], '/v1/graph/edges', { source: 'node.backlog-item.b', target: 'node.backlog-item.a', type: 'blocked-by' })
    expect(cycle.status).toBe(409)
    expect(await cycle.json()).toMatchObject({ error: { code: 'CYCLE' } })
    const neighbours = (await (await as(sub, [], '/v1/graph/nodes/node.backlog-item.b/neighbours?direction=in')).json()) as { items: { source: string }[] }
    expect(neighbours.items.map((e) => e.source)).toEqual(['node.backlog-item.a'])
  })
})
