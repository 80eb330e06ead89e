/**
 * What `GET /v1/sessions` lists for each of the caller's sessions: what the
 * session was created with, which never changes (its live state is its view).
 */
export interface SessionListing {
  id: string
  title: string | null
  model: string
  createdAt: number
  /** The session it was forked from, if any. */
  forkedFrom?: string
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
