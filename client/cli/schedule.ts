/**
 * `neuron schedule`: a session's schedules from the terminal (docs/schedules.md). `list` shows each
 * live schedule with its next fire time; `add` creates one from flags (exactly one of --at, --after,
 * --every, --cron); `delete` removes one. Refusals print the server's code (exit 1).
 */
import type { NeuronClient } from '../index.ts'
import type { Schedule, ScheduleInput } from '../schedules.ts'
import type { Style } from './render.ts'

/** The flags `neuron schedule add` reads. */
export type ScheduleFlags = Partial<Record<'at' | 'after' | 'every' | 'cron' | 'tz' | 'text' | 'id' | 'count' | 'until' | 'missed', string>> & { steer?: boolean }

/**
 * The body of a create from the flags; a message for a usage error.
 *
 * @example
 * scheduleInput({ cron: '0 9 * * 1-5', tz: 'Europe/Berlin', text: 'the digest' }) // { when: { kind: 'cron', … }, prompt: { text: 'the digest', delivery: 'queue' } }
 */
export function scheduleInput(flags: ScheduleFlags): ScheduleInput | string {
  const kinds = (['at', 'after', 'every', 'cron'] as const).filter((k) => flags[k] !== undefined)
  if (kinds.length !== 1) return 'give exactly one of --at ISO, --after SECONDS, --every SECONDS, --cron "m h dom mon dow"'
  if (!flags.text) return '--text is required: the prompt each fire admits'
  const number = (name: 'after' | 'every' | 'count') => Number(flags[name])
  const kind = kinds[0]!
  const when: ScheduleInput['when'] =
    kind === 'at' ? { kind, at: flags.at! } : kind === 'cron' ? { kind, cron: flags.cron!, ...(flags.tz ? { timezone: flags.tz } : {}) } : { kind, seconds: number(kind) }
  const end = { ...(flags.count !== undefined ? { count: number('count') } : {}), ...(flags.until !== undefined ? { until: flags.until } : {}) }
  return {
    ...(flags.id ? { id: flags.id } : {}),
    when,
    prompt: { text: flags.text, delivery: flags.steer ? 'steer' : 'queue' },
    ...(Object.keys(end).length > 0 ? { end } : {}),
    ...(flags.missed ? { missed: flags.missed as ScheduleInput['missed'] } : {}),
  }
}

function line(schedule: Schedule, style: Style): string {
  const when = schedule.definition.when
  const what = when.kind === 'cron' ? `cron "${when.cron}" ${when.timezone}` : when.kind === 'at' ? 'at' : `${when.kind} ${when.seconds}s`
  return `${schedule.id}  ${what}  next ${style.cyan(new Date(schedule.next).toISOString())}  fired ${schedule.fired}\n`
}

/**
 * Runs one `neuron schedule` action; the exit code.
 *
 * @example
 * await schedule(client, { action: 'list', session: 'demo', flags: {} }, { json: false, style, write })
 */
export async function schedule(
  client: NeuronClient,
  command: { action: 'list' | 'add' | 'delete'; session: string; id?: string; input?: ScheduleInput },
  options: { json: boolean; style: Style; write(text: string): void },
): Promise<number> {
  const { json, style, write } = options
  const schedules = client.session(command.session).schedules
  if (command.action === 'list') {
    const items = await schedules.list()
    if (json) write(`${JSON.stringify(items)}\n`)
    else if (items.length === 0) write(style.dim('no schedules: `neuron schedule add` creates one\n'))
    else for (const item of items) write(line(item, style))
    return 0
  }
  if (command.action === 'delete') {
    await schedules.delete(command.id!)
    write(json ? `${JSON.stringify({ deleted: command.id })}\n` : `deleted ${command.id}\n`)
    return 0
  }
  const { schedule: created } = await schedules.create(command.input!)
  write(json ? `${JSON.stringify(created)}\n` : line(created, style))
  return 0
}
