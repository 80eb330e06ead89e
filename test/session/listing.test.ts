/**
 * `GET /v1/sessions`: the caller's own sessions, as created, paged in either order; a retried create
 * or a fork lists once; nobody sees another's. The owner's changes (`PATCH /v1/sessions/{id}`:
 * rename, archive, restore) and the title a first prompt gives are events folded latest wins; a
 * title search and the archive filter read a bounded scan; `live=true` reads each listed session's
 * status, last activity and pending approvals. Refusals write nothing (test/worker/refusals.test.ts
 * holds TITLE_TOO_LONG and an unknown session to every row and key).
 */
import { describe, expect, it } from 'vitest'
import { api, postJson } from '../support/api.ts'
import { bearer } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'
import { waitIdle } from '../support/session.ts'

type Live = { status: string; lastActivityAt: number; approvals: number; agent: string; promptTitle: string | null; lastSequence: number }
type Listing = { id: string; title: string | null; model: string; createdAt: number; forkedFrom?: string; agent?: string; archived: boolean; live?: Live | null }
type Page = { items: Listing[]; next: number | null }

const list = async (as: string, query = ''): Promise<Page> => {
  const res = await api(`/v1/sessions${query}`, {}, as)
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()) as Page
}
const ids = (page: Page) => page.items.map((l) => l.id)
const patch = (id: string, body: unknown, as: string) => api(`/v1/sessions/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, as)
const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code

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
      { id: first, title: 'First', model: 'local/echo-1', createdAt: expect.any(Number), agent: 'default', archived: false },
      { id: second, title: null, model: 'local/echo-small', createdAt: expect.any(Number), agent: 'default', archived: false },
    ])
    expect(all.next).toBeNull()
    const page = await list(who, '?limit=1')
    expect(ids(page)).toEqual([first])
    expect(ids(await list(who, `?after=${page.next}&limit=1`))).toEqual([second])
    // Newest first, with the same cursor in that order.
    const newest = await list(who, '?order=newest&limit=1')
    expect(ids(newest)).toEqual([second])
    expect(ids(await list(who, `?order=newest&after=${newest.next}&limit=1`))).toEqual([first])
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

  it('the first prompt titles an untitled session; a rename wins, and a later prompt changes nothing', async () => {
    const who = uniqueName('titler')
    const id = uniqueName('titled')
    expect((await postJson('/v1/sessions', { id }, who)).status).toBe(201)
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '\n   Plan the release notes   \nwith details' }, who)).status).toBe(202)
    await expect.poll(async () => (await list(who)).items[0]?.title).toBe('Plan the release notes')
    await waitIdle(id, 20_000, who)
    const renamed = await patch(id, { title: '  Release 2.0  ' }, who)
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toEqual({ id, title: 'Release 2.0', archived: false })
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: 'something else entirely' }, who)).status).toBe(202)
    await waitIdle(id, 20_000, who)
    expect((await list(who)).items[0]!.title).toBe('Release 2.0')
    // A created title is kept: its first prompt writes no title.
    const named = uniqueName('named')
    expect((await postJson('/v1/sessions', { id: named, title: 'Given' }, who)).status).toBe(201)
    expect((await postJson(`/v1/sessions/${named}/prompt`, { text: 'not a title' }, who)).status).toBe(202)
    await waitIdle(named, 20_000, who)
    expect((await list(who, '?q=given')).items.map((l) => l.title)).toEqual(['Given'])
  })

  it('archive and restore move a session between the lists; search matches titles, case-insensitively', async () => {
    const who = uniqueName('archiver')
    const made = [uniqueName('alpha'), uniqueName('beta'), uniqueName('gamma')]
    for (const [i, id] of made.entries()) expect((await postJson('/v1/sessions', { id, title: ['Quarterly report', 'Bug triage', 'Report draft'][i] }, who)).status).toBe(201)
    expect(ids(await list(who, '?q=REPORT'))).toEqual([made[0], made[2]])
    expect(ids(await list(who, '?q=nothing-like-it'))).toEqual([])

    expect((await (await patch(made[0]!, { archived: true }, who)).json())).toMatchObject({ archived: true })
    expect(ids(await list(who))).toEqual([made[1], made[2]])
    expect(ids(await list(who, '?archived=true'))).toEqual([made[0]])
    expect(ids(await list(who, '?q=report&archived=true'))).toEqual([made[0]])
    // The same change again writes nothing and answers the same.
    expect((await (await patch(made[0]!, { archived: true }, who)).json())).toEqual({ id: made[0], title: 'Quarterly report', archived: true })
    await patch(made[0]!, { archived: false }, who)
    expect(ids(await list(who))).toEqual(made)
    expect((await list(who, '?archived=true')).items).toEqual([])
  })

  it('live=true reads each session: idle, then waiting with its approval count', async () => {
    const who = uniqueName('live')
    const id = uniqueName('asking')
    expect((await postJson('/v1/sessions', { id }, who)).status).toBe(201)
    const put = await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permission: { rules: [{ tool: 'bash', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'ask' }] } }) }, who)
    expect(put.status).toBe(200)
    const before = (await list(who, '?live=true')).items[0]!.live!
    expect(before).toEqual({ status: 'idle', lastActivityAt: expect.any(Number), approvals: 0, agent: 'default', promptTitle: null, lastSequence: expect.any(Number) })
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: `/tool bash ${JSON.stringify({ command: 'rm notes.txt' })}` }, who)).status).toBe(202)
    await expect.poll(async () => (await list(who, '?live=true')).items[0]!.live, { timeout: 20_000 }).toMatchObject({ status: 'waiting', approvals: 1 })
    const shown = (await list(who, '?live=true')).items[0]!
    expect(shown.live!.lastActivityAt).toBeGreaterThanOrEqual(before.lastActivityAt)
    expect(shown.title).toBe('/tool bash {"command":"rm notes.txt"}')
    // Without `live`, nothing is read from the session.
    expect((await list(who)).items[0]!.live).toBeUndefined()
  })

  it('refuses a bad query, a bad title, a live page over 50, and a change by anyone but the owner', async () => {
    const who = uniqueName('refused')
    const id = uniqueName('mine')
    expect((await postJson('/v1/sessions', { id, share: ['org:acme'] }, who)).status).toBe(201)
    for (const query of ['?limit=0', '?live=true&limit=51', '?archived=maybe', '?order=sideways', `?q=${'x'.repeat(201)}`]) {
      const res = await api(`/v1/sessions${query}`, {}, who)
      expect(res.status, query).toBe(400)
      expect(await codeOf(res), query).toBe('INVALID_QUERY')
    }
    const long = await patch(id, { title: 'x'.repeat(201) }, who)
    expect([long.status, await codeOf(long)]).toEqual([400, 'TITLE_TOO_LONG'])
    for (const body of [{}, { title: '' }, { title: 'two\nlines' }, { archived: 'yes' }, { title: 'ok', extra: 1 }]) {
      const res = await patch(id, body, who)
      expect([res.status, await codeOf(res)], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST'])
    }
    const ghost = await patch(uniqueName('ghost'), { title: 'x' }, who)
    expect([ghost.status, await codeOf(ghost)]).toEqual([404, 'SESSION_NOT_FOUND'])
    // A holder of the shared claim reads the session but does not rename it in the owner's listing.
    const holder = { ...(await bearer(uniqueName('holder'), ['org:acme'])), 'content-type': 'application/json' }
    const shared = await api(`/v1/sessions/${id}`, { method: 'PATCH', headers: holder, body: JSON.stringify({ title: 'theirs' }) })
    expect([shared.status, await codeOf(shared)]).toEqual([403, 'SESSION_LISTING_OWNER_ONLY'])
    expect((await list(who)).items.map((l) => l.title)).toEqual([null])
  })
})
