/**
 * What a session list shows of a session's live state, folded from its projection: its status, when
 * it last did something, how many permission requests wait for its owner, the profile it runs and the
 * title its first prompt gave it. Read from each listed session for the page shown only, so a turn
 * writes nothing for the list.
 *
 * @example
 * summaryOf(state) // { status: 'waiting', lastActivityAt: 1764680000000, approvals: 1, agent: 'default', promptTitle: 'Fix the login bug', lastSequence: 42 }
 */
import type { SessionState } from './projection.ts'

/** Waiting: a permission request waits for the owner; running: a turn runs or prompts wait; halted: the loop stopped on a limit or failure. */
export type SessionStatus = 'idle' | 'running' | 'waiting' | 'halted'

export interface SessionSummary {
  status: SessionStatus
  lastActivityAt: number
  approvals: number
  agent: string
  promptTitle: string | null
  /** The last event this summary folds: a stream's later events move it on. */
  lastSequence: number
}

export function summaryOf(state: SessionState): SessionSummary {
  const approvals = Object.keys(state.asks ?? {}).length
  const busy = state.run !== null || state.loopOpen || state.pending.length > 0
  const status: SessionStatus = approvals > 0 ? 'waiting' : busy ? 'running' : state.halted ? 'halted' : 'idle'
  return { status, lastActivityAt: state.lastAt || state.createdAt, approvals, agent: state.agent, promptTitle: state.promptTitle ?? null, lastSequence: state.lastSeq }
}
