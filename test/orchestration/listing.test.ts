/**
 * `GET /v1/orchestrations`: the caller's own orchestrations, as created, oldest
 * first and paged; a retried create lists once; a refused create lists nothing;
 * nobody sees another's.
 */
import { describe, expect, it } from 'vitest'
import { api, postJson } from '../support/api.ts'
import { uniqueName } from '../support/ledger.ts'

type Page = { items: { id: string; goal: string; createdAt: number }[]; next: number | null }

const list = async (as: string, query = ''): Promise<Page> => (await (await api(`/v1/orchestrations${query}`, {}, as)).json()) as Page
const plan = [{ id: 'a', instructions: '/tool report {"result":"done"}' }]

describe("the caller's orchestration listing", () => {
  it('lists each orchestration once with its goal line, oldest first, and pages', async () => {
    const who = uniqueName('conductor')
    const first = uniqueName('first')
    const second = uniqueName('second')
    expect((await postJson('/v1/orchestrations', { id: first, goal: 'Ship it\nwith details the listing drops', plan }, who)).status).toBe(201)
    // An exact retry answers 200 and lists nothing new.
    expect((await postJson('/v1/orchestrations', { id: first, goal: 'Ship it\nwith details the listing drops', plan }, who)).status).toBe(200)
    expect((await postJson('/v1/orchestrations', { id: second, goal: 'x'.repeat(300), plan }, who)).status).toBe(201)

    const all = await list(who)
    expect(all.items).toEqual([
      { id: first, goal: 'Ship it', createdAt: expect.any(Number) },
      { id: second, goal: 'x'.repeat(200), createdAt: expect.any(Number) },
    ])
    expect(all.next).toBeNull()
    const page = await list(who, '?limit=1')
    expect(page.items.map((l) => l.id)).toEqual([first])
    expect((await list(who, `?after=${page.next}&limit=1`)).items.map((l) => l.id)).toEqual([second])
    expect((await list(uniqueName('stranger'))).items).toEqual([])
  })

  it('a refused create lists nothing, and a bad page query is INVALID_QUERY', async () => {
    const who = uniqueName('refused')
    const bad = await postJson('/v1/orchestrations', { id: uniqueName('cycle'), goal: 'g', plan: [{ id: 'a', needs: ['a'], instructions: 'x' }] }, who)
    expect(bad.status).toBe(400)
    expect((await list(who)).items).toEqual([])
    const res = await api('/v1/orchestrations?limit=0', {}, who)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_QUERY')
  })
})
