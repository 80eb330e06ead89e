/**
 * The sessions list's state, a fold over what the API and the open session's stream say: pages of
 * `GET /v1/sessions?live=true` (appended in order, each row as the server answered it), the owner's
 * changes as `PATCH` answered them, a fork's new session, and the open session's durable events
 * (its status, approvals and last activity move with them). Nothing is remembered from an earlier
 * page: a reload folds the same answers to the same list. Pure: no DOM.
 *
 * @example
 * let state = emptyList({ q: '', archived: false })
 * state = pageLoaded(state, await client.sessions({ order: 'newest', live: true }))
 * state = eventSeen(state, sessionId, envelope)
 */
import type { ListedSession, SessionMarks, Stored } from '../../../client/index.ts'

export type Status = 'idle' | 'running' | 'waiting' | 'halted' | 'unknown'

/** One row as the list shows it. */
export interface Row {
  id: string
  title: string | null
  agent: string | null
  status: Status
  lastActivityAt: number | null
  approvals: number
  archived: boolean
  forkedFrom: string | null
  /** The last event the row folds (its page's, then the stream's): an event at or before it is already counted. */
  seq: number
}

export interface ListState {
  filter: { q: string; archived: boolean }
  rows: Row[]
  /** The cursor of the next page; null once the last page was read. */
  next: number | null
  /** A page has been read since the filter was set (an empty list is then really empty). */
  loaded: boolean
}

export function emptyList(filter: ListState['filter']): ListState {
  return { filter, rows: [], next: 0, loaded: false }
}

/** A listed session as a row. */
export function rowOf(item: ListedSession): Row {
  const live = item.live ?? null
  return {
    id: item.id,
    title: item.title,
    agent: live?.agent ?? item.agent ?? null,
    status: live?.status ?? 'unknown',
    lastActivityAt: live?.lastActivityAt ?? item.createdAt,
    approvals: live?.approvals ?? 0,
    archived: item.archived,
    forkedFrom: item.forkedFrom ?? null,
    seq: live?.lastSequence ?? 0,
  }
}

/** A page arrived: its rows go after those shown (a row already shown is answered again in place). */
export function pageLoaded(state: ListState, page: { items: ListedSession[]; next: number | null }): ListState {
  const known = new Set(state.rows.map((r) => r.id))
  const fresh = page.items.map(rowOf)
  const rows = state.rows.map((r) => fresh.find((f) => f.id === r.id) ?? r).concat(fresh.filter((f) => !known.has(f.id)))
  return { ...state, rows, next: page.next, loaded: true }
}

/** The owner's change as the server answered it; a row that left the filter (archived, restored) leaves the list. */
export function marked(state: ListState, marks: SessionMarks): ListState {
  const rows = state.rows
    .map((r) => (r.id === marks.id ? { ...r, title: marks.title ?? r.title, archived: marks.archived } : r))
    .filter((r) => r.archived === state.filter.archived)
  return { ...state, rows }
}

/** A new session (a fork) goes first, as the newest-first order lists it. */
export function added(state: ListState, row: Row): ListState {
  if (state.filter.archived || state.rows.some((r) => r.id === row.id)) return state
  return { ...state, rows: [row, ...state.rows] }
}

/** A durable event of a listed session moves its status, approvals and last activity. */
export function eventSeen(state: ListState, session: string, envelope: Stored): ListState {
  const index = state.rows.findIndex((r) => r.id === session)
  if (index < 0 || envelope.seq <= state.rows[index]!.seq) return state
  const row = state.rows[index]!
  const type = envelope.type.replace('session.next.', '')
  let { status, approvals } = row
  if (type === 'permission.requested') approvals++
  if (type === 'permission.answered' || type === 'permission.expired') approvals = Math.max(0, approvals - 1)
  if (type === 'admitted' || type === 'prompted' || type === 'step.started' || type === 'drain.started') status = 'running'
  if (type === 'drain.ended') status = 'idle'
  if (type === 'halted') status = 'halted'
  if (approvals > 0) status = 'waiting'
  else if (status === 'waiting') status = 'running'
  const rows = state.rows.slice()
  rows[index] = { ...row, seq: envelope.seq, status, approvals, lastActivityAt: Math.max(row.lastActivityAt ?? 0, envelope.time) }
  return { ...state, rows }
}
