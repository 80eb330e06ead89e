/**
 * A session's schedules as a fold over their events (`session.{id}.schedules` on the session's
 * ledger): created, changed, fired, deleted. Every event carries the schedule's next time as it
 * stood after it, so the fold holds each live schedule's next fire time without computing one; a
 * schedule whose next time is null has ended and leaves the fold, as a deleted one does, so the
 * state is bounded by the live schedules (`SCHEDULE_LIMITS.perSession`), not by history.
 */
import type { Stored } from '../ledger/envelope.ts'
import type { MissedPolicy, ScheduleDefinition } from './spec.ts'

export const SCHEDULE_EVENT = {
  created: 'schedule.created',
  changed: 'schedule.changed',
  fired: 'schedule.fired',
  deleted: 'schedule.deleted',
} as const

/** Who a schedule's prompts come from: the principal that created (or last changed) it, with its claims then. */
export interface ScheduleAuthor {
  id: string
  claims: string[]
}

/** The payloads of the schedule events. */
export interface ScheduleEvents {
  [SCHEDULE_EVENT.created]: { id: string; definition: ScheduleDefinition; digest: string; by: ScheduleAuthor; next: number | null }
  [SCHEDULE_EVENT.changed]: { id: string; definition: ScheduleDefinition; digest: string; by: ScheduleAuthor; next: number | null }
  /**
   * One fire: `due` the time it was due, `at` the clock when it ran, `fires` the times it admitted
   * a prompt for (their message ids derive from them), `missed` the due times it passed over under
   * `policy`, `next` the schedule's next time (null: it has ended).
   */
  [SCHEDULE_EVENT.fired]: { id: string; due: number; at: number; fires: number[]; messageIds: string[]; missed: number; policy: MissedPolicy; next: number | null }
  [SCHEDULE_EVENT.deleted]: { id: string; by: string }
}

/** One live schedule, as listed. */
export interface Schedule {
  id: string
  definition: ScheduleDefinition
  /** The digest of its definition: an exact retry of its creation matches it. */
  digest: string
  by: ScheduleAuthor
  /** Its next fire time (ms since the epoch). */
  next: number
  /** Prompts its fires admitted so far. */
  fired: number
  /** Its last fire, when it has fired. */
  last: { due: number; at: number; fires: number[]; missed: number; policy: MissedPolicy } | null
  created: number
}

/** The fold: live schedules by id. */
export type SchedulesState = Record<string, Schedule>

/** The message id a fire at `time` of schedule `id` admits its prompt under: the same fire, the same id. */
export function fireMessageId(id: string, time: number): string {
  return `schedule:${id}:${time}`
}

/**
 * @example
 * const { state } = ledger.fold('session.s1.schedules', reduceSchedules, {})
 */
export function reduceSchedules(state: SchedulesState, envelope: Stored): SchedulesState {
  const id = (envelope.payload as { id: string }).id
  const next: SchedulesState = { ...state }
  switch (envelope.type) {
    case SCHEDULE_EVENT.created:
    case SCHEDULE_EVENT.changed: {
      const p = envelope.payload as unknown as ScheduleEvents[typeof SCHEDULE_EVENT.created]
      const before = state[id]
      if (p.next === null) delete next[id]
      else next[id] = { id, definition: p.definition, digest: p.digest, by: p.by, next: p.next, fired: before?.fired ?? 0, last: before?.last ?? null, created: before?.created ?? envelope.time }
      return next
    }
    case SCHEDULE_EVENT.fired: {
      const p = envelope.payload as unknown as ScheduleEvents[typeof SCHEDULE_EVENT.fired]
      const before = state[id]
      if (!before) return state
      if (p.next === null) delete next[id]
      else next[id] = { ...before, next: p.next, fired: before.fired + p.fires.length, last: { due: p.due, at: p.at, fires: p.fires, missed: p.missed, policy: p.policy } }
      return next
    }
    case SCHEDULE_EVENT.deleted:
      delete next[id]
      return next
    default:
      return state
  }
}
