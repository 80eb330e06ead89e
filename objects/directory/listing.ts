/**
 * What `GET /v1/sessions` lists for each of the caller's sessions: what the session was created
 * with, which never changes, with its owner's changes folded over it (marks.ts: title, archive);
 * its live state is read from the session itself (objects/session/events/summary.ts).
 */
import type { SessionSummary } from '../session/events/summary.ts'

/** What the directory stores when a session is created (or forked). */
export interface SessionListing {
  id: string
  title: string | null
  model: string
  createdAt: number
  /** The session it was forked from, if any. */
  forkedFrom?: string
  /** The agent profile it was created with (absent in listings older than profiles). */
  agent?: string
}

/** A listing as the owner sees it now: the latest title and whether it is archived. */
export interface ListedSession extends SessionListing {
  archived: boolean
}

/** A listed session with its live state, when the page asked for it (null: the session did not answer). */
export interface LiveListedSession extends ListedSession {
  live?: SessionSummary | null
}

/** Which of an owner's listings a page reads: a title search, archived or not, and the order. */
export interface ListingFilter {
  q?: string | undefined
  archived?: boolean | undefined
  order?: 'oldest' | 'newest' | undefined
}

/** What `PATCH /v1/sessions/{id}` answers: the session's title and archive state now. */
export interface SessionMarks {
  id: string
  title: string | null
  archived: boolean
}

/**
 * What `GET /v1/orchestrations` lists for each of the caller's orchestrations: what it was created
 * with, which never changes (its live state is its view).
 */
export interface OrchestrationListing {
  id: string
  /** The goal's first line, at most `LISTED_GOAL_CHARS` characters. */
  goal: string
  createdAt: number
}

/** How much of an orchestration's goal its listing keeps (the rest is in its view). */
export const LISTED_GOAL_CHARS = 200
