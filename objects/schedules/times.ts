/**
 * When a schedule fires: its first time, the time after each fire, and what one fire admits when
 * the object wakes late (a pause missed some of its times). Pure: every function takes the clock's
 * reading, so a test moves time by passing another number.
 *
 * Cron patterns are read by croner (five fields, in the schedule's IANA time zone). Across a
 * daylight-saving change a wall-clock time that does not exist that day (02:30 when clocks jump
 * from 02:00 to 03:00) fires at the first minute after the jump, and one that happens twice (01:30
 * when clocks fall back) fires once, at its first occurrence.
 */
import { Cron } from 'croner'
import { NeuronError } from '../core/errors.ts'
import { SCHEDULE_LIMITS } from '../core/limits.ts'
import type { MissedPolicy, ScheduleDefinition, StoredWhen } from './spec.ts'

/** What one fire does: the times it admits a prompt for, how many it dropped, and the next time. */
export interface FirePlan {
  /** The fire times admitted, oldest first (one per prompt). */
  fires: number[]
  /** Due times passed over by the policy (a `coalesce`'s older ones, a `skip`'s, `all`'s past its bound). */
  missed: number
  /** The schedule's next time, or null when it has ended. */
  next: number | null
}

/**
 * Refuses a definition that cannot fire as asked: a cron pattern croner does not read, not of five
 * fields, or in an unknown time zone (`INVALID_SCHEDULE`), an interval under the minimum
 * (`SCHEDULE_INTERVAL_TOO_SHORT`).
 *
 * @example
 * checkWhen({ kind: 'every', seconds: 10 }) // throws SCHEDULE_INTERVAL_TOO_SHORT
 */
export function checkWhen(when: StoredWhen): void {
  if (when.kind === 'every' && when.seconds < SCHEDULE_LIMITS.minIntervalSeconds) {
    throw new NeuronError('SCHEDULE_INTERVAL_TOO_SHORT', `a schedule repeats at most every ${SCHEDULE_LIMITS.minIntervalSeconds} s; ${when.seconds} s asked`, {
      status: 400,
      details: { seconds: when.seconds, minimum: SCHEDULE_LIMITS.minIntervalSeconds },
    })
  }
  if (when.kind === 'cron') cronOf(when)
}

/**
 * The first fire time of a schedule created (or changed) at `now`; null when it would never fire.
 * `after` and `every` count from `now`; an `at` time already past fires at once if it is within
 * `SCHEDULE_LIMITS.lateMs`, and never otherwise.
 *
 * @example
 * firstFire({ when: { kind: 'after', seconds: 2 }, … }, 1000) // 3000
 */
export function firstFire(definition: ScheduleDefinition, now: number): number | null {
  const { when } = definition
  const first = when.kind === 'at' ? (when.at >= now - SCHEDULE_LIMITS.lateMs ? when.at : null) : when.kind === 'cron' ? cronAfter(when, now - 1) : now + when.seconds * 1000
  return within(definition, first, 0)
}

/**
 * What a fire at `now` does for a schedule due at `due` that has fired `fired` times: the due
 * times up to `now` (walked at most `SCHEDULE_LIMITS.scanFires`), then the missed-fire policy.
 * On time (one due time, at most `lateMs` ago) every policy admits it.
 *
 * @example
 * planFire(daily, due, 3, due + 3 * DAY) // coalesce: { fires: [due + 3 * DAY], missed: 3, next: due + 4 * DAY }
 */
export function planFire(definition: ScheduleDefinition, due: number, fired: number, now: number): FirePlan {
  const times: number[] = []
  let walked = 0
  let at: number | null = due
  while (at !== null && at <= now && walked < SCHEDULE_LIMITS.scanFires) {
    times.push(at)
    // Only the newest ones can be admitted; the rest are counted.
    if (times.length > SCHEDULE_LIMITS.catchUp) times.shift()
    walked++
    at = after(definition.when, at, due)
  }
  // A walk cut short jumps to the first time after now.
  if (at !== null && at <= now) at = after(definition.when, now, due)
  const late = walked > 1 || now - due > SCHEDULE_LIMITS.lateMs
  let fires = admitted(definition.missed, times, late)
  const remaining = definition.end.count === undefined ? Infinity : definition.end.count - fired
  if (fires.length > remaining) fires = fires.slice(fires.length - Math.max(0, remaining))
  const next = fired + fires.length >= (definition.end.count ?? Infinity) ? null : within(definition, at, fired + fires.length)
  return { fires, missed: walked - fires.length, next }
}

function admitted(policy: MissedPolicy, times: number[], late: boolean): number[] {
  if (!late) return times
  if (policy === 'skip') return []
  if (policy === 'coalesce') return times.slice(-1)
  return times
}

/** The time after `time` (strictly), or null for a one-shot schedule. `anchor` is an `every`'s first time. */
function after(when: StoredWhen, time: number, anchor: number): number | null {
  if (when.kind === 'at' || when.kind === 'after') return null
  if (when.kind === 'cron') return cronAfter(when, time)
  const step = when.seconds * 1000
  return anchor + (Math.floor((time - anchor) / step) + 1) * step
}

/** `time` if the schedule's end allows it, else null. */
function within(definition: ScheduleDefinition, time: number | null, fired: number): number | null {
  if (time === null) return null
  if (definition.end.until !== undefined && time > definition.end.until) return null
  if (definition.end.count !== undefined && fired >= definition.end.count) return null
  return time
}

function cronAfter(when: Extract<StoredWhen, { kind: 'cron' }>, time: number): number | null {
  return cronOf(when).nextRun(new Date(time))?.getTime() ?? null
}

function cronOf(when: Extract<StoredWhen, { kind: 'cron' }>): Cron {
  const fields = when.cron.trim().split(/\s+/)
  if (fields.length !== 5) {
    throw new NeuronError('INVALID_SCHEDULE', `a cron pattern has five fields (minute hour day month weekday); ${fields.length} given`, { status: 400, details: { cron: when.cron } })
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: when.timezone })
  } catch {
    throw new NeuronError('INVALID_SCHEDULE', `unknown time zone ${when.timezone}: give an IANA name such as Europe/Berlin`, { status: 400, details: { timezone: when.timezone } })
  }
  try {
    return new Cron(when.cron, { timezone: when.timezone, paused: true })
  } catch (error) {
    throw new NeuronError('INVALID_SCHEDULE', `cron pattern ${when.cron} does not read: ${(error as Error).message}`, { status: 400, details: { cron: when.cron } })
  }
}
