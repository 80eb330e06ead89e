/**
 * A session's schedules, as the client sees it (docs/schedules.md): list the live ones, create one
 * (at a time, after a delay, every interval, or a cron pattern in a time zone), replace one's
 * definition, delete one. A create with an `id` is safe to retry: the same definition again is
 * answered `created: false`.
 */
import type { z } from 'zod'
import type { Http } from './http.ts'
import type { Schedule } from '../objects/schedules/fold.ts'
import type { ChangeScheduleSchema, CreateScheduleSchema } from '../objects/schedules/spec.ts'

export type { Schedule } from '../objects/schedules/fold.ts'
/** What `create` takes: `when`, `prompt`, optional `id`, `end` and `missed`. */
export type ScheduleInput = z.input<typeof CreateScheduleSchema>
/** What `change` takes: the definition anew. */
export type ScheduleChange = z.input<typeof ChangeScheduleSchema>

/**
 * @example
 * const schedules = neuron.session('demo').schedules
 * await schedules.create({ id: 'digest', when: { kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' }, prompt: { text: 'Summarise the inbox' } })
 * for (const s of await schedules.list()) console.log(s.id, new Date(s.next))
 */
export class SchedulesHandle {
  readonly #http: Http
  readonly #path: string

  constructor(http: Http, session: string) {
    this.#http = http
    this.#path = `${session}/schedules`
  }

  /** The live schedules, oldest first, each with its next fire time (ms since the epoch) and its last fire. */
  async list(): Promise<Schedule[]> {
    return (await this.#http.json<{ items: Schedule[] }>('GET', this.#path)).items
  }

  /** Creates a schedule; `created: false` when the same id and definition were created before. */
  create(input: ScheduleInput): Promise<{ schedule: Schedule; created: boolean }> {
    return this.#http.json('POST', this.#path, input)
  }

  /** Replaces a schedule's definition; it fires from its new first time after now. */
  async change(id: string, input: ScheduleChange): Promise<Schedule> {
    return (await this.#http.json<{ schedule: Schedule }>('PUT', `${this.#path}/${encodeURIComponent(id)}`, input)).schedule
  }

  /** Deletes a schedule: it never fires again. */
  async delete(id: string): Promise<void> {
    await this.#http.send('DELETE', `${this.#path}/${encodeURIComponent(id)}`)
  }
}
