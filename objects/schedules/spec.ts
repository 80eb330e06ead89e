/**
 * What a schedule is, as the routes, the model's tools, the client and the CLI send it: when it
 * fires (`at` a time, `after` a delay, `every` an interval, a `cron` pattern in a time zone), the
 * prompt each fire admits, an optional end (a count of fires, a date), and what a pause that missed
 * fires does (`missed`). Platform-free (zod and the id rule only), so a browser, Node or a Worker
 * imports it.
 */
import { z } from 'zod'
import { Identifier } from '../core/validate.ts'
import { SCHEDULE_LIMITS } from '../core/limits.ts'
import { oneOfTextOrParts, PromptFields } from '../session/intake/schemas.ts'

/** A time: an ISO 8601 date-time with its offset (`2030-03-10T09:00:00Z`), or ms since the epoch. */
const Instant = z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()])

/** When a schedule fires. */
export const ScheduleWhen = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('at'), at: Instant }),
  z.strictObject({ kind: z.literal('after'), seconds: z.number().positive().max(SCHEDULE_LIMITS.maxDelaySeconds) }),
  z.strictObject({ kind: z.literal('every'), seconds: z.number().int().positive().max(SCHEDULE_LIMITS.maxDelaySeconds) }),
  z.strictObject({
    kind: z.literal('cron'),
    /** Five fields: minute hour day-of-month month day-of-week (croner's syntax). */
    cron: z.string().min(9).max(256),
    /** An IANA time zone (`Europe/Berlin`); default `UTC`. */
    timezone: z.string().min(1).max(64).default('UTC'),
  }),
])
export type ScheduleWhen = z.output<typeof ScheduleWhen>

/** The prompt each fire admits: text or parts, and its delivery (`queue` by default, or `steer`). */
export const SchedulePrompt = z.strictObject({ text: PromptFields.text, parts: PromptFields.parts, delivery: PromptFields.delivery }).refine(...oneOfTextOrParts)
export type SchedulePrompt = z.output<typeof SchedulePrompt>

/**
 * What a pause (nothing ran when fires were due) does: `coalesce` admits one catch-up fire (the
 * default), `skip` admits none and waits for the next time, `all` admits each missed fire, up to
 * `SCHEDULE_LIMITS.catchUp`.
 */
export const MissedPolicy = z.enum(['coalesce', 'skip', 'all'])
export type MissedPolicy = z.output<typeof MissedPolicy>

/** The fields of a schedule but its id: what `PUT` replaces. */
const ScheduleFields = {
  when: ScheduleWhen,
  prompt: SchedulePrompt,
  /** The schedule ends after `count` fires, or at `until` (no fire after it), whichever is first. */
  end: z.strictObject({ count: z.number().int().positive().max(1_000_000).optional(), until: Instant.optional() }).optional(),
  missed: MissedPolicy.default('coalesce'),
}

/** The body of `POST /v1/sessions/{id}/schedules`: `id` makes a retry a no-op. */
export const CreateScheduleSchema = z.strictObject({
  id: Identifier.max(SCHEDULE_LIMITS.idChars).optional(),
  ...ScheduleFields,
})
export type CreateScheduleInput = z.output<typeof CreateScheduleSchema>

/** The body of `PUT /v1/sessions/{id}/schedules/{schedule}`: the schedule anew, fired from its next time after now. */
export const ChangeScheduleSchema = z.strictObject(ScheduleFields)

/** A schedule's id in a path. */
export const ScheduleId = Identifier.max(SCHEDULE_LIMITS.idChars)

/** When, as stored: an `at` time in ms since the epoch. */
export type StoredWhen = Exclude<ScheduleWhen, { kind: 'at' }> | { kind: 'at'; at: number }

/** A schedule as it is stored and listed: its definition with absolute times. */
export interface ScheduleDefinition {
  when: StoredWhen
  prompt: SchedulePrompt
  end: { count?: number; until?: number }
  missed: MissedPolicy
}

/**
 * The stored form of an input: instants as ms since the epoch; `after` kept as the delay the
 * caller asked for, its one fire time fixed in the event that created it.
 *
 * @example
 * definitionOf({ when: { kind: 'at', at: '2030-01-01T00:00:00Z' }, prompt: { text: 'hi', delivery: 'queue' }, missed: 'coalesce' })
 */
export function definitionOf(input: z.output<typeof ChangeScheduleSchema>): ScheduleDefinition {
  const when = input.when.kind === 'at' ? { kind: 'at' as const, at: instant(input.when.at) } : input.when
  const end: ScheduleDefinition['end'] = {}
  if (input.end?.count !== undefined) end.count = input.end.count
  if (input.end?.until !== undefined) end.until = instant(input.end.until)
  const prompt = input.prompt.text !== undefined ? { text: input.prompt.text, delivery: input.prompt.delivery } : { parts: input.prompt.parts, delivery: input.prompt.delivery }
  return { when, prompt: prompt as SchedulePrompt, end, missed: input.missed }
}

function instant(value: string | number): number {
  return typeof value === 'number' ? value : Date.parse(value)
}
