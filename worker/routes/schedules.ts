/**
 * `/v1/sessions/{id}/schedules`: a session's schedules (docs/schedules.md). List the live ones,
 * create one (a client-chosen id makes a retry a no-op), replace one's definition, delete one.
 * Each fire admits the schedule's prompt through the session's own admission, exactly once per
 * fire time. Mounted under `/v1/sessions` beside the session routes.
 */
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { ChangeScheduleSchema, CreateScheduleSchema } from '../../objects/schedules/spec.ts'
import { callerOf } from '../caller.ts'
import { BODY_ERRORS } from '../openapi/body-errors.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'
import { sessionStub } from '../session-calls.ts'

const SESSION_ERRORS = ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID']
const DEFINITION_ERRORS = [...BODY_ERRORS, 'INVALID_SCHEDULE', 'SCHEDULE_INTERVAL_TOO_SHORT', 'SCHEDULE_NEVER_FIRES', 'AGENT_STEER_OWNER_ONLY']

const int = { type: 'integer' }
const Fire = { type: 'object', properties: { due: int, at: int, fires: { type: 'array', items: int }, missed: int, policy: { enum: ['coalesce', 'skip', 'all'] } } }
const Schedule = {
  type: 'object',
  required: ['id', 'definition', 'digest', 'by', 'next', 'fired', 'last', 'created'],
  properties: {
    id: { type: 'string' },
    definition: { type: 'object', description: 'when, prompt, end, missed (times in ms since the epoch)' },
    digest: { type: 'string' },
    by: { type: 'object', properties: { id: { type: 'string' }, claims: { type: 'array', items: { type: 'string' } } } },
    next: { ...int, description: 'the next fire time, ms since the epoch' },
    fired: { ...int, description: 'prompts its fires admitted' },
    last: { oneOf: [Fire, { type: 'null' }] },
    created: int,
  },
}
const OneSchedule = { type: 'object', required: ['schedule'], properties: { schedule: Schedule } }

/**
 * The schedule routes, declared once with their handlers.
 *
 * @example
 * SCHEDULE_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const SCHEDULE_ROUTES = [
  route({
    method: 'get',
    path: '/v1/sessions/{id}/schedules',
    operationId: 'listSchedules',
    summary: "The session's live schedules, oldest first, each with its next fire time and its last fire",
    auth: 'bearer',
    ok: { 200: 'the live schedules' },
    response: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: Schedule } } },
    errors: SESSION_ERRORS,
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).listSchedules(callerOf(c))),
  }),
  route({
    method: 'post',
    path: '/v1/sessions/{id}/schedules',
    operationId: 'createSchedule',
    summary: 'Create a schedule: at a time, after a delay, every interval, or a cron pattern in a time zone; each fire admits its prompt once',
    auth: 'bearer',
    body: CreateScheduleSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'created', 200: 'exact retry: the same schedule' },
    response: { type: 'object', required: ['schedule', 'created'], properties: { schedule: Schedule, created: { type: 'boolean' } } },
    errors: [...SESSION_ERRORS, ...DEFINITION_ERRORS, 'SCHEDULE_EXISTS', 'SCHEDULE_LIMIT'],
    handler: async (c) => {
      const result = await (await sessionStub(c.env, c.req.param('id'))).createSchedule(callerOf(c), await readJson(c.req.raw))
      return c.json(result, result.created ? 201 : 200)
    },
  }),
  route({
    method: 'put',
    path: '/v1/sessions/{id}/schedules/{schedule}',
    operationId: 'changeSchedule',
    summary: "Replace a schedule's definition; it fires from its new first time after now",
    auth: 'bearer',
    body: ChangeScheduleSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the schedule as changed' },
    response: OneSchedule,
    errors: [...SESSION_ERRORS, ...DEFINITION_ERRORS, 'SCHEDULE_NOT_FOUND'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).changeSchedule(callerOf(c), c.req.param('schedule'), await readJson(c.req.raw))),
  }),
  route({
    method: 'delete',
    path: '/v1/sessions/{id}/schedules/{schedule}',
    operationId: 'deleteSchedule',
    summary: 'Delete a schedule: it never fires again (a fire already admitted stays admitted)',
    auth: 'bearer',
    ok: { 200: 'deleted' },
    response: { type: 'object', required: ['deleted'], properties: { deleted: { type: 'string' } } },
    errors: [...SESSION_ERRORS, 'INVALID_SCHEDULE', 'SCHEDULE_NOT_FOUND', 'AGENT_STEER_OWNER_ONLY'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).deleteSchedule(callerOf(c), c.req.param('schedule'))),
  }),
]

/** The router of the schedule routes, mounted at `/v1/sessions`. */
export const schedules = mount('/v1/sessions', SCHEDULE_ROUTES)
