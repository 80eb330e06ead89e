/**
 * The model's own schedules (docs/schedules.md): `schedule_create`, `schedule_list` and
 * `schedule_delete` over the session's schedules, acting for its owner. Creating and deleting
 * change what the session will be prompted with later, so they assert the permission policy first
 * (they ask by default; listing is allowed), and run only in a turn that acts for the owner
 * (`require: 'owner'`): a share holder's prompt cannot schedule prompts in the owner's name.
 */
import { z } from 'zod'
import type { Schedule } from '../../schedules/fold.ts'
import { CreateScheduleSchema, ScheduleId } from '../../schedules/spec.ts'
import { Tool, type ToolContext } from '../tool.ts'

/** What the schedule tools use of the session's schedules, already acting for its owner. */
export interface ScheduleAccess {
  list(): { items: Schedule[] }
  create(input: unknown): { schedule: Schedule; created: boolean }
  delete(id: string): { deleted: string }
}

/** A schedule as the model is shown it: times as ISO strings. */
function shown(schedule: Schedule) {
  return { id: schedule.id, when: schedule.definition.when, prompt: schedule.definition.prompt, next: new Date(schedule.next).toISOString(), fired: schedule.fired, missed: schedule.definition.missed }
}

const Shown = z.object({ id: z.string(), when: z.unknown(), prompt: z.unknown(), next: z.string(), fired: z.number(), missed: z.string() })

function ask(context: ToolContext, tool: string, input: unknown, reason: string): Promise<void> {
  return context.permission.assert({ tool, source: 'builtin', subjects: [], input, reason })
}

/**
 * @example
 * const tools = scheduleTools(access)
 * registry.register('schedule_create', tools.create)
 */
export function scheduleTools(schedules: ScheduleAccess) {
  const create = Tool.make({
    description:
      'Schedule a prompt to this session for later: when is {kind:"at", at: ISO time} | {kind:"after", seconds} | {kind:"every", seconds (≥ 60)} | {kind:"cron", cron: five fields, timezone: IANA name}. Optional end {count, until}, missed: coalesce | skip | all.',
    input: CreateScheduleSchema,
    output: z.object({ schedule: Shown, created: z.boolean() }),
    require: 'owner',
    execute: async (input, context) => {
      await ask(context, 'schedule_create', input, `schedule a prompt: ${JSON.stringify(input.when)}`)
      const { schedule, created } = schedules.create(input)
      return { schedule: shown(schedule), created }
    },
  })
  const list = Tool.make({
    description: "List this session's schedules with their next fire times.",
    input: z.object({}),
    output: z.object({ items: z.array(Shown) }),
    require: 'owner',
    execute: () => ({ items: schedules.list().items.map(shown) }),
  })
  const remove = Tool.make({
    description: 'Delete one of this session\'s schedules by its id: it never fires again.',
    input: z.object({ id: ScheduleId }),
    output: z.object({ deleted: z.string() }),
    require: 'owner',
    execute: async ({ id }, context) => {
      await ask(context, 'schedule_delete', { id }, `delete schedule ${id}`)
      return schedules.delete(id)
    },
  })
  return { create, list, delete: remove }
}
