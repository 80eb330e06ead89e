/**
 * A session's schedules (docs/schedules.md): created, changed and deleted as events on
 * `session.{id}.schedules` in the session's ledger, folded into each live schedule's next fire
 * time (objects/schedules/fold.ts). One durable named timer (`schedules`, objects/core/timers.ts)
 * stands at the earliest next time; when it fires, each due schedule fires in one synchronous step:
 * its prompts are admitted through the session's own admission (intake.ts) under message ids
 * derived from (schedule id, fire time), and its `schedule.fired` event moves its next time on.
 * Both commit together or neither does, and an admission of an id already admitted is its receipt
 * again, so a retried alarm, a restart or a crash around a fire admits each fire's prompt once.
 *
 * Refusals write nothing: every check (the caller, the input, the limits) runs before the first write.
 *
 * @example
 * const schedules = new SessionSchedules(host)
 * schedules.create(caller, { when: { kind: 'after', seconds: 2 }, prompt: { text: 'check the build' } })
 * await schedules.fire() // the `schedules` timer's handler
 */
import type { Caller } from '../../access/authorize.ts'
import { NeuronError } from '../../core/errors.ts'
import { MAX_PENDING, SCHEDULE_LIMITS } from '../../core/limits.ts'
import type { Timers } from '../../core/timers.ts'
import { parseOrThrow } from '../../core/validate.ts'
import { Chain } from '../../ledger/chain.ts'
import type { Folded } from '../../ledger/ledger.ts'
import type { Header } from '../../ledger/headers.ts'
import { sha256Hex } from '../../ledger/hash.ts'
import { canonicalJson } from '../../ledger/json.ts'
import { fireMessageId, reduceSchedules, type Schedule, SCHEDULE_EVENT, type ScheduleEvents, type SchedulesState } from '../../schedules/fold.ts'
import { ChangeScheduleSchema, CreateScheduleSchema, definitionOf, ScheduleId } from '../../schedules/spec.ts'
import { checkWhen, firstFire, planFire } from '../../schedules/times.ts'
import { admitPrompt } from '../intake/intake.ts'
import type { SessionCore } from '../wiring/session-core.ts'

const SNAPSHOT_KEY = 'schedules.fold'

/** What schedules use of the session. */
export interface SchedulesHost extends Pick<SessionCore, 'name' | 'topic' | 'ledger' | 'storage' | 'receipts' | 'state' | 'record' | 'wake' | 'interruptRunner'> {
  timers: Pick<Timers<'schedules'>, 'set' | 'clear'>
  /** The session's clock (a test's own in tests). */
  now(): number
  /** Authorizes `caller` for `action` on the session (access.ts); throws as the session's other calls do. */
  check(caller: Caller, action: 'read' | 'prompt'): void
  /** The headers a prompt from `caller` is admitted with (access.ts). */
  promptHeaders(caller: Caller): Header[]
}

export class SessionSchedules {
  private readonly chain: Chain
  private folded: Folded<SchedulesState> | undefined
  private sinceSnapshot = 0

  constructor(private readonly host: SchedulesHost) {
    this.chain = new Chain(host.ledger, `${host.topic}.schedules`)
  }

  /** The live schedules, oldest first. */
  list(caller: Caller): { items: Schedule[] } {
    this.host.check(caller, 'read')
    return { items: Object.values(this.state()).sort((a, b) => a.created - b.created || a.id.localeCompare(b.id)) }
  }

  /**
   * Creates a schedule; the same id with the same definition again is a no-op (`created: false`),
   * with another `SCHEDULE_EXISTS`. Past `SCHEDULE_LIMITS.perSession` live ones: `SCHEDULE_LIMIT`.
   */
  create(caller: Caller, input: unknown): { schedule: Schedule; created: boolean } {
    this.host.check(caller, 'prompt')
    const parsed = parseOrThrow(CreateScheduleSchema, input, 'INVALID_SCHEDULE')
    const definition = definitionOf(parsed)
    const digest = sha256Hex(canonicalJson(definition as never))
    const id = parsed.id ?? crypto.randomUUID()
    const existing = this.state()[id]
    if (existing) {
      if (existing.digest === digest) return { schedule: existing, created: false }
      throw new NeuronError('SCHEDULE_EXISTS', `schedule ${id} exists with another definition; PUT changes it`, { status: 409, details: { id } })
    }
    const live = Object.keys(this.state()).length
    if (live >= SCHEDULE_LIMITS.perSession) {
      throw new NeuronError('SCHEDULE_LIMIT', `session ${this.host.name} has ${live} schedules, the most it may hold; delete one first`, {
        status: 429,
        details: { live, limit: SCHEDULE_LIMITS.perSession },
      })
    }
    const next = this.first(definition)
    this.append(SCHEDULE_EVENT.created, caller.id, { id, definition, digest, by: { id: caller.id, claims: [...caller.claims] }, next })
    this.arm()
    return { schedule: this.state()[id]!, created: true }
  }

  /** Replaces a schedule's definition; it fires from its new first time after now. `SCHEDULE_NOT_FOUND` for none. */
  change(caller: Caller, id: string, input: unknown): { schedule: Schedule } {
    this.host.check(caller, 'prompt')
    const existing = this.existing(id)
    const definition = definitionOf(parseOrThrow(ChangeScheduleSchema, input, 'INVALID_SCHEDULE'))
    const digest = sha256Hex(canonicalJson(definition as never))
    if (existing.digest === digest) return { schedule: existing }
    const next = this.first(definition)
    this.append(SCHEDULE_EVENT.changed, caller.id, { id, definition, digest, by: { id: caller.id, claims: [...caller.claims] }, next })
    this.arm()
    return { schedule: this.state()[id]! }
  }

  /** Deletes a schedule: it never fires again. `SCHEDULE_NOT_FOUND` for none (a second delete included). */
  delete(caller: Caller, id: string): { deleted: string } {
    this.host.check(caller, 'prompt')
    this.existing(id)
    this.append(SCHEDULE_EVENT.deleted, caller.id, { id, by: caller.id })
    this.arm()
    return { deleted: id }
  }

  /**
   * The `schedules` timer's handler: fires every schedule due by the clock, each in one
   * synchronous step (its admissions and its `schedule.fired` event), then sets the timer at the
   * earliest next time. A fire whose prompts the inbox has no room for throws before it writes:
   * the timer runs it again later (objects/core/timers.ts), under the same message ids.
   */
  fire(): void {
    const now = this.host.now()
    // A fire that throws leaves the timer to its retry (no `arm`, which would set it at the due time again).
    for (const schedule of Object.values(this.state())) if (schedule.next <= now) this.fireOne(schedule, now)
    this.arm()
  }

  /** Sets the `schedules` timer at the earliest next time (or clears it); its writes join the caller's step. */
  arm(): void {
    let earliest: number | null = null
    for (const schedule of Object.values(this.state())) if (earliest === null || schedule.next < earliest) earliest = schedule.next
    if (earliest === null) this.host.timers.clear('schedules')
    else void this.host.timers.set('schedules', earliest)
  }

  private fireOne(schedule: Schedule, now: number): void {
    const plan = planFire(schedule.definition, schedule.next, schedule.fired, now)
    const prompt = schedule.definition.prompt
    const digest = sha256Hex(canonicalJson({ text: prompt.text ?? prompt.parts!.map((part) => part.text).join('\n'), delivery: prompt.delivery }))
    // A fire time whose id holds another prompt (a schedule changed back onto a time it had fired) is passed over, not refused for ever.
    const fires = plan.fires.filter((time) => {
      const admitted = this.host.receipts.get(fireMessageId(schedule.id, time))
      return !admitted || admitted.digest === digest
    })
    const pending = this.host.state().pending.length
    if (pending + fires.length > MAX_PENDING) {
      throw new NeuronError('INBOX_FULL', `schedule ${schedule.id}: ${pending} prompts already wait in session ${this.host.name}`, { status: 429, details: { pending, limit: MAX_PENDING } })
    }
    const headers = fires.length > 0 ? this.host.promptHeaders(schedule.by) : []
    const messageIds = fires.map((time) => {
      const id = fireMessageId(schedule.id, time)
      admitPrompt(this.host, { id, ...prompt }, [...headers, { key: 'schedule', value: schedule.id }])
      return id
    })
    this.append(SCHEDULE_EVENT.fired, 'object:session', {
      id: schedule.id,
      due: schedule.next,
      at: now,
      fires,
      messageIds,
      missed: plan.missed + (plan.fires.length - fires.length),
      policy: schedule.definition.missed,
      next: plan.next,
    })
  }

  /** The first fire time of a definition checked whole, or `SCHEDULE_NEVER_FIRES`. */
  private first(definition: ReturnType<typeof definitionOf>): number {
    checkWhen(definition.when)
    const next = firstFire(definition, this.host.now())
    if (next === null) throw new NeuronError('SCHEDULE_NEVER_FIRES', 'the schedule would never fire: its time is past, or its end comes before its first time', { status: 400 })
    return next
  }

  private existing(id: string): Schedule {
    const valid = parseOrThrow(ScheduleId, id, 'INVALID_SCHEDULE')
    const schedule = this.state()[valid]
    if (!schedule) throw new NeuronError('SCHEDULE_NOT_FOUND', `session ${this.host.name} has no schedule ${valid}`, { status: 404, details: { id: valid } })
    return schedule
  }

  private state(): SchedulesState {
    if (!this.folded) {
      const snapshot = this.host.storage.kv.get<Folded<SchedulesState>>(SNAPSHOT_KEY)
      this.folded = this.host.ledger.fold(this.chain.topic, reduceSchedules, {}, snapshot)
    }
    return this.folded.state
  }

  private append<K extends keyof ScheduleEvents>(type: K, author: string, payload: ScheduleEvents[K]): void {
    const state = this.state()
    const envelope = this.chain.append(type, author, payload)
    this.folded = { state: reduceSchedules(state, envelope), cursor: envelope.seq }
    // A memo of the fold, so a wake folds at most `snapshotEvery` events of a long-lived schedule.
    if (++this.sinceSnapshot >= SCHEDULE_LIMITS.snapshotEvery) {
      this.host.storage.kv.put(SNAPSHOT_KEY, this.folded)
      this.sinceSnapshot = 0
    }
  }
}
