/**
 * The Sessions pane's fold (shell-web/ui/sessions/list-state.ts): pages append in order and answer a
 * shown row again in place; an owner's change that leaves the filter removes the row; the open
 * session's events move status, approvals and last activity, and a replayed event the page already
 * counted moves nothing, so a reload (page, then the socket's replay) shows the same list.
 */
import { describe, expect, it } from 'vitest'
import type { ListedSession, Stored } from '../../../client/index.ts'
import { emptyList, eventSeen, marked, pageLoaded } from '../../../shell-web/ui/sessions/list-state.ts'

const listed = (id: string, live: Partial<NonNullable<ListedSession['live']>> = {}): ListedSession => ({
  id, title: id, model: 'local/echo-1', createdAt: 1, archived: false, agent: 'default',
  live: { status: 'idle', lastActivityAt: 10, approvals: 0, agent: 'default', promptTitle: null, lastSequence: 5, ...live },
})
const event = (type: string, seq: number, time = 100) => ({ type: `session.next.${type}`, seq, time }) as unknown as Stored

describe('the sessions list fold', () => {
  it('appends pages and answers a shown row again in place', () => {
    let state = pageLoaded(emptyList({ q: '', archived: false }), { items: [listed('a'), listed('b')], next: 7 })
    state = pageLoaded(state, { items: [listed('b', { status: 'running' }), listed('c')], next: null })
    expect(state.rows.map((r) => [r.id, r.status])).toEqual([['a', 'idle'], ['b', 'running'], ['c', 'idle']])
    expect(state.next).toBeNull()
  })

  it('an archived row leaves the unarchived list; a rename changes the title only', () => {
    let state = pageLoaded(emptyList({ q: '', archived: false }), { items: [listed('a'), listed('b')], next: null })
    state = marked(state, { id: 'a', title: 'Renamed', archived: false })
    expect(state.rows.map((r) => r.title)).toEqual(['Renamed', 'b'])
    state = marked(state, { id: 'b', title: 'b', archived: true })
    expect(state.rows.map((r) => r.id)).toEqual(['a'])
  })

  it('events after the page move the row; a replay of what the page counted does not', () => {
    let state = pageLoaded(emptyList({ q: '', archived: false }), { items: [listed('a', { status: 'waiting', approvals: 1, lastSequence: 9 })], next: null })
    // The socket replays from the start: the request the page counted is not counted twice.
    for (const [type, seq] of [['created', 1], ['admitted', 2], ['permission.requested', 9]] as const) state = eventSeen(state, 'a', event(type, seq))
    expect(state.rows[0]).toMatchObject({ status: 'waiting', approvals: 1 })
    state = eventSeen(state, 'a', event('permission.answered', 10, 500))
    expect(state.rows[0]).toMatchObject({ status: 'running', approvals: 0, lastActivityAt: 500, seq: 10 })
    state = eventSeen(state, 'a', event('drain.ended', 11))
    expect(state.rows[0]!.status).toBe('idle')
    state = eventSeen(state, 'a', event('halted', 12))
    expect(state.rows[0]!.status).toBe('halted')
    expect(eventSeen(state, 'zz', event('halted', 13))).toBe(state)
  })
})
