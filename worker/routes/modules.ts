/**
 * `/v1/modules`: the caller's uploaded tool modules (docs/extending.md#uploaded-tool-modules). An
 * upload is a new version of its module, checked whole before anything is stored
 * (objects/modules/module.ts) and its code loaded once under the app backends' bounds
 * (objects/apps/run.ts) to prove it is an ES module with every declared tool. Modules live in the
 * caller's shelf (objects/apps/shelf-object.ts), beside their app packages; every route acts on the
 * caller's own, never on another principal's.
 */
import type { Context } from 'hono'
import { NeuronError } from '../../objects/core/errors.ts'
import { MODULE_LIMITS } from '../../objects/core/limits.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import { shelfKey } from '../../objects/apps/installation.ts'
import { AppId } from '../../objects/apps/package.ts'
import { backendHost, checkBackend } from '../../objects/apps/run.ts'
import { checkModule, ModuleUpload } from '../../objects/modules/module.ts'
import type { StoredModule } from '../../objects/modules/store.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import * as R from '../openapi/module-responses.ts'
import { BODY_ERRORS } from '../openapi/body-errors.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'

/** Room for the envelope of an upload (`MODULE_LIMITS.bytes` is checked on its canonical form). */
export const MODULE_BODY = MODULE_LIMITS.bytes + 64 * 1024

type Ctx = Context<AppEnv>

/**
 * The `/v1/modules` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * MODULE_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const MODULE_ROUTES = [
  route({
    method: 'post',
    path: '/v1/modules',
    operationId: 'uploadModule',
    summary: 'Upload a new version of a tool module (ES module code, its tools with input and output schemas, the origins it may fetch); checked whole, loaded once; its tools are offered to the caller\'s sessions from their next turn',
    auth: 'bearer',
    body: ModuleUpload,
    maxBodyBytes: MODULE_BODY,
    ok: { 201: 'stored as the next version', 200: 'this upload is the current version already' },
    response: R.StoredModule,
    errors: [...BODY_ERRORS, 'INVALID_MODULE', 'MODULE_TOO_LARGE', 'TOOL_NAME_DUPLICATE', 'TOOL_NAME_TAKEN', 'TOO_MANY_MODULES', 'INVALID_SCHEMA', 'INVALID_ORIGIN', 'URL_REFUSED', 'BACKEND_LOAD_FAILED', 'BACKEND_LIMIT', 'BACKEND_UNAVAILABLE'],
    handler: async (c) => {
      const person = callerOf(c).id
      const checked = checkModule(await readJson(c.req.raw), { development: c.env.NEURON_ENV === 'development' }, new Set(c.get('extensions').tools.keys()))
      await checkBackend(backendHost(c.env), checked.hash, checked.upload.code, checked.upload.tools.map((tool) => tool.name))
      // The shelf is registered before its first write; the refusals it may still make (a name another of the caller's modules offers, too many modules) need modules stored, so an existing shelf.
      await register(c.env, shelfKey(person))
      // Declarations carry JSON Schemas (`unknown` values), which RPC's types cannot name: the shelf's own type.
      const stored = (await settled(c.env.APP_SHELVES.getByName(person)).putModule(person, checked)) as unknown as StoredModule
      return c.json(stored, stored.duplicate ? 200 : 201)
    },
  }),
  route({
    method: 'get',
    path: '/v1/modules',
    operationId: 'listModules',
    summary: "The caller's tool modules, each at its current version (declarations, no code)",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.Modules,
    errors: [],
    handler: async (c) => {
      const person = callerOf(c).id
      return c.json({ items: (await exists(c.env, shelfKey(person))) ? await settled(c.env.APP_SHELVES.getByName(person)).toolModules() : [] })
    },
  }),
  route({
    method: 'get',
    path: '/v1/modules/{module}',
    operationId: 'getModule',
    summary: "A tool module's current version, with its code",
    auth: 'bearer',
    ok: { 200: 'the module' },
    response: R.ModuleWithCode,
    errors: ['INVALID_REQUEST', 'MODULE_NOT_FOUND'],
    handler: async (c) => c.json(await currentOf(c)),
  }),
  route({
    method: 'delete',
    path: '/v1/modules/{module}',
    operationId: 'retireModule',
    summary: 'Retire a tool module: its tools leave the caller\'s sessions at their next turn; its versions stay in the shelf\'s ledger, and a later upload continues its numbering',
    auth: 'bearer',
    ok: { 200: 'retired' },
    response: R.Retired,
    errors: ['INVALID_REQUEST', 'MODULE_NOT_FOUND'],
    handler: async (c) => {
      const person = callerOf(c).id
      const { module } = await currentOf(c)
      return c.json(await settled(c.env.APP_SHELVES.getByName(person)).retireModule(person, module))
    },
  }),
]

/** The `/v1/modules` router, mounted by worker/neuron.ts: `app.route('/v1/modules', modules)`. */
export const modules = mount('/v1/modules', MODULE_ROUTES)

/** The caller's module named by the route, at its current version; `MODULE_NOT_FOUND` (404) without creating anything. */
async function currentOf(c: Ctx) {
  const person = callerOf(c).id
  const id = parseOrThrow(AppId, c.req.param('module'), 'INVALID_REQUEST')
  const found = (await exists(c.env, shelfKey(person))) ? await settled(c.env.APP_SHELVES.getByName(person)).toolModule(id) : null
  if (!found) throw new NeuronError('MODULE_NOT_FOUND', `the caller has no tool module ${id}`, { status: 404 })
  return found
}
