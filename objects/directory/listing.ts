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
