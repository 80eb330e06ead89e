/**
 * `GET /v1/sessions`: the caller's own sessions, as created, oldest first and
 * paged; a retried create or a fork lists once; nobody sees another's.
 */
import { describe, expect, it } from 'vitest'
import { api, postJson } from '../support/api.ts'
import { uniqueName } from '../support/ledger.ts'

type Listing = { id: string; title: string | null; model: string; createdAt: number; forkedFrom?: string }
type Page = { items: Listing[]; next: number | null }

const list = async (as: string, query = ''): Promise<Page> => (await (await api(`/v1/sessions${query}`, {}, as)).json()) as Page

describe("the caller's session listing", () => {
  it('lists each session once, as created, oldest first, and pages', async () => {
    const who = uniqueName('lister')
    const first = uniqueName('first')
    const second = uniqueName('second')
    expect((await postJson('/v1/sessions', { id: first, title: 'First' }, who)).status).toBe(201)
    // An exact retry of the create answers 200 and lists nothing new.
    expect((await postJson('/v1/sessions', { id: first, title: 'First' }, who)).status).toBe(200)
    expect((await postJson('/v1/sessions', { id: second, model: 'local/echo-small' }, who)).status).toBe(201)

    const all = await list(who)
    expect(all.items).toEqual([
      { id: first, title: 'First', model: 'local/echo-1', createdAt: expect.any(Number) },
      { id: second, title: null, model: 'local/echo-small', createdAt: expect.any(Number) },
    ])
    expect(all.next).toBeNull()
    const page = await list(who, '?limit=1')
    expect(page.items.map((l) => l.id)).toEqual([first])
    expect((await list(who, `?after=${page.next}&limit=1`)).items.map((l) => l.id)).toEqual([second])
  })

  it('a fork is listed with where it came from; another principal sees none of it', async () => {
    const who = uniqueName('forker')
    const origin = uniqueName('origin')
    expect((await postJson('/v1/sessions', { id: origin }, who)).status).toBe(201)
    const history = (await (await api(`/v1/sessions/${origin}/history`, {}, who)).json()) as { items: { seq: number; type: string }[] }
    const created = history.items.find((e) => e.type === 'session.next.created')!
    const fork = await postJson(`/v1/sessions/${origin}/fork`, { at: created.seq, id: `${origin}-fork` }, who)
    expect(fork.status, await fork.clone().text()).toBe(201)
    expect((await list(who)).items.map((l) => [l.id, l.forkedFrom])).toEqual([
      [origin, undefined],
      [`${origin}-fork`, origin],
    ])
    expect((await list(uniqueName('stranger'))).items).toEqual([])
  })

  it('a bad page query is INVALID_QUERY', async () => {
    const res = await api('/v1/sessions?limit=0')
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_QUERY')
  })
})
