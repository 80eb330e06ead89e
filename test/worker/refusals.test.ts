/**
 * One request never writes and then fails: for every mutating route of the API, a request the
 * route refuses leaves the objects it addresses exactly as they were. "As they were" is every
 * row of every table of the object's SQLite database and every key of its storage, read inside
 * the object before and after, so a refused request that appended an event, an index row, a
 * receipt or a snapshot is caught whatever it wrote; listings are read through the API too.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { installationName } from '../../objects/apps/installation.ts'
import { graphName } from '../../objects/graph/namespace.ts'
import { ROUTES } from '../../worker/openapi/routes.ts'
import { COUNTER } from '../fixtures/apps/packages.ts'
import { installed, warm } from '../apps/support.ts'
import { api } from '../support/api.ts'
import { idOf } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'
import { finished, newOrchestration, script, waitUntil } from '../support/orchestration.ts'
import { events, newSession, postJson, waitIdle } from '../support/session.ts'

type Stub = DurableObjectStub
/** A route's refused request, the code it must answer, and what it must leave unchanged. */
type Row = [method: string, path: () => string, body: unknown, code: string, watched: () => (Stub | (() => Promise<unknown>))[], headers?: Record<string, string>]

/** Every table's rows and every storage key of an object, as text. */
async function contents(stub: Stub): Promise<string> {
  return runInDurableObject(stub, (_o: unknown, state: DurableObjectState) => {
    const sql = state.storage.sql
    const tables = sql.exec<{ name: string }>("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' order by name").toArray()
    const rows = tables.map(({ name }) => [name, [...sql.exec(`select * from "${name}"`).raw()].map((row) => row.map(text))])
    const keys = [...state.storage.kv.list()].map(([key, value]) => [key, JSON.stringify(value)])
    return JSON.stringify([rows, keys])
  })
}

const text = (value: unknown) => (value instanceof ArrayBuffer ? [...new Uint8Array(value)].join(',') : value)

/** What `watched` reads now, once two reads in a row agree (background work of earlier requests may still land). */
async function settledRead(watched: (Stub | (() => Promise<unknown>))[]): Promise<string[]> {
  const read = () => Promise.all(watched.map(async (w) => (typeof w === 'function' ? JSON.stringify(await w()) : contents(w))))
  let last = await read()
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 40))
    const now = await read()
    if (JSON.stringify(now) === JSON.stringify(last)) return now
    last = now
  }
  throw new Error('the watched objects never settled')
}

const json = async (path: string) => (await api(path)).json()

describe('a refused request writes nothing', () => {
  const ada = idOf('ada')
  const ctx = { session: '', stepStarted: 0, edge: '', ledger: uniqueName('refuse'), orchestration: '', ghost: uniqueName('ghost') }
  const session = () => env.SESSIONS.getByName(ctx.session)
  const graph = () => env.GRAPHS.getByName(graphName({ id: ada, claims: [] }))
  const config = () => env.CONFIGS.getByName(ada)
  const ledger = () => env.LEDGER.getByName(ctx.ledger)
  const shelf = () => env.APP_SHELVES.getByName(ada)
  const counter = () => env.APP_BACKENDS.getByName(installationName(ada, 'counter'))
  const sessions = () => json('/v1/sessions?limit=1000')

  beforeAll(async () => {
    await warm()
    const { id } = await newSession('refuse')
    ctx.session = id
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'p1', text: 'one' })
    await waitIdle(id)
    ctx.stepStarted = (await events(id)).find((e) => e.type === 'session.next.step.started')!.seq
    await postJson('/v1/graph/nodes', { kind: 'note', id: 'n1', text: 'one' })
    await postJson('/v1/graph/nodes', { kind: 'note', id: 'n2', text: 'two' })
    const edge = (await (await postJson('/v1/graph/edges', { source: 'node.note.n1', target: 'node.note.n2', type: 'blocked-by' })).json()) as { id: string }
    ctx.edge = edge.id
    await postJson(`/v1/graph/edges/${edge.id}/prune`, { reason: 'done' })
    await api('/v1/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ instructions: ['be brief'] }) })
    await api(`/v1/ledgers/${ctx.ledger}/schemas/s@1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'object', required: ['n'] }) })
    await installed(COUNTER, 'ada')
    const orchestration = await newOrchestration({ plan: [{ id: 'a', instructions: script('a') }] })
    ctx.orchestration = orchestration.id
    await waitUntil(orchestration.id, finished)
  }, 120_000)

  const rows: Row[] = [
    // Sessions
    ['post', () => '/v1/sessions', () => ({ id: ctx.session, title: 'another title' }), 'SESSION_EXISTS', () => [session(), sessions]],
    ['post', () => '/v1/sessions', () => ({ id: ctx.ghost, model: 'local/no-such-model' }), 'UNKNOWN_MODEL', () => [env.SESSIONS.getByName(ctx.ghost), sessions]],
    ['post', () => `/v1/sessions/${ctx.session}/prompt`, { id: 'p1', text: 'not the same text' }, 'PROMPT_CONFLICT', () => [session()]],
    ['post', () => `/v1/sessions/${ctx.session}/interrupt`, { step: 3 }, 'INVALID_REQUEST', () => [session()]],
    ['put', () => `/v1/sessions/${ctx.session}/config`, { instructions: ['x'] }, 'CONFIG_VERSION_MISMATCH', () => [session()], { 'if-match': '"v99"' }],
    ['post', () => `/v1/sessions/${ctx.session}/permissions`, { toolCallId: 'call_none', reply: 'once' }, 'PERMISSION_UNKNOWN', () => [session()]],
    ['put', () => `/v1/sessions/${ctx.session}/workspace/file?path=../escape.txt`, 'x', 'PATH_ESCAPE', () => [session()]],
    ['put', () => `/v1/sessions/${ctx.session}/workspace/tar`, 'not a tar archive', 'TAR_INVALID', () => [session()]],
    ['post', () => `/v1/sessions/${ctx.session}/schedules`, { when: { kind: 'every', seconds: 1 }, prompt: { text: 'x' } }, 'SCHEDULE_INTERVAL_TOO_SHORT', () => [session()]],
    ['put', () => `/v1/sessions/${ctx.session}/schedules/none`, { when: { kind: 'after', seconds: 5 }, prompt: { text: 'x' } }, 'SCHEDULE_NOT_FOUND', () => [session()]],
    ['delete', () => `/v1/sessions/${ctx.session}/schedules/none`, undefined, 'SCHEDULE_NOT_FOUND', () => [session()]],
    ['post', () => `/v1/sessions/${ctx.session}/hooks`, { name: 'ci', template: 'no placeholder' }, 'INVALID_HOOK', () => [session()]],
    ['post', () => `/v1/hooks/${ctx.session}~ci`, { unsigned: true }, 'HOOK_UNSIGNED', () => [session()]],
    ['post', () => `/v1/sessions/${ctx.ghost}/tickets`, undefined, 'SESSION_NOT_FOUND', () => [env.SESSIONS.getByName(ctx.ghost)]],
    ['post', () => `/v1/sessions/${ctx.session}/fork`, () => ({ at: 9999, id: `${ctx.session}-f` }), 'UNKNOWN_SEQUENCE', () => [session(), env.SESSIONS.getByName(`${ctx.session}-f`), sessions]],
    ['post', () => `/v1/sessions/${ctx.session}/truncate`, () => ({ at: ctx.stepStarted }), 'NOT_A_TURN_BOUNDARY', () => [session(), graph()]],
    // Graph and memory
    ['post', () => '/v1/graph/nodes', { kind: 'note', id: 'n1', text: 'other text' }, 'NODE_EXISTS', () => [graph()]],
    ['post', () => '/v1/graph/edges', { source: 'node.note.n1', target: 'node.note.n1', type: 'blocked-by' }, 'SELF_EDGE', () => [graph()]],
    ['post', () => '/v1/graph/edges', { source: 'node.note.n1', target: 'node.note.nope', type: 'follows' }, 'UNKNOWN_NODE', () => [graph()]],
    ['post', () => `/v1/graph/edges/${ctx.edge}/prune`, { reason: 'again' }, 'EDGE_RETIRED', () => [graph()]],
    ['post', () => '/v1/memory/remember', { text: 'x'.repeat(16 * 1024 + 1) }, 'TEXT_TOO_LARGE', () => [graph()]],
    ['post', () => '/v1/memory/forget', { address: 'node.knowledge.nope', reason: 'r' }, 'UNKNOWN_MEMORY', () => [graph()]],
    // Config
    ['put', () => '/v1/config', { instructions: 1 }, 'INVALID_CONFIG', () => [config()]],
    ['put', () => '/v1/config', { instructions: ['x'] }, 'CONFIG_VERSION_MISMATCH', () => [config()], { 'if-match': '"v99"' }],
    ['put', () => '/v1/config/credentials/nope', { apiKey: 'sk-123' }, 'UNKNOWN_PROVIDER', () => [config()]],
    ['delete', () => '/v1/config/credentials/nope', undefined, 'UNKNOWN_PROVIDER', () => [config()]],
    ['put', () => '/v1/config/mcp/s1/headers', { headers: {} }, 'INVALID_REQUEST', () => [config()]],
    ['delete', () => '/v1/config/mcp/a..b/headers', undefined, 'INVALID_REQUEST', () => [config()]],
    ['post', () => '/v1/config/mcp/nope/oauth', {}, 'MCP_SERVER_NOT_FOUND', () => [config()]],
    ['delete', () => '/v1/config/mcp/a..b/oauth', undefined, 'INVALID_REQUEST', () => [config()]],
    // Orchestrations
    ['post', () => '/v1/orchestrations', () => ({ id: ctx.ghost, goal: 'g', plan: [{ id: 'a', needs: ['a'], instructions: 'x' }] }), 'INVALID_PLAN', () => [env.ORCHESTRATIONS.getByName(ctx.ghost)]],
    ['post', () => `/v1/orchestrations/${ctx.orchestration}/cancel`, { package: 'nope' }, 'PACKAGE_NOT_FOUND', () => [env.ORCHESTRATIONS.getByName(ctx.orchestration)]],
    ['post', () => `/v1/orchestrations/${ctx.orchestration}/packages/a/clearance`, { decision: 'grant' }, 'CLEARANCE_CLAIM_REQUIRED', () => [env.ORCHESTRATIONS.getByName(ctx.orchestration)]],
    // Ledgers
    ['post', () => `/v1/ledgers/${ctx.ledger}/envelopes`, { topic: 'a.b', type: 't', schema: 's@1', payload: {} }, 'SCHEMA_VIOLATION', () => [ledger()]],
    ['put', () => `/v1/ledgers/${ctx.ledger}/schemas/s@1`, { type: 'object' }, 'SCHEMA_CONFLICT', () => [ledger()]],
    // Apps
    ['post', () => '/v1/modules', { module: 'probe', code: 'export const probe = () => 1', tools: [{ name: 'calculator', description: 'x', input: { type: 'object' }, output: { type: 'object' } }] }, 'TOOL_NAME_TAKEN', () => [shelf()]],
    ['delete', () => '/v1/modules/absent', undefined, 'MODULE_NOT_FOUND', () => [shelf()]],
    ['post', () => '/v1/apps/packages', { ...COUNTER, manifest: { ...COUNTER.manifest, entry: 'x.html' } }, 'MISSING_ENTRY', () => [shelf()]],
    ['post', () => '/v1/apps/installs', { package: '0'.repeat(64) }, 'PACKAGE_NOT_FOUND', () => [shelf()]],
    ['put', () => '/v1/apps/installs/counter', { package: '0'.repeat(64) }, 'PACKAGE_NOT_FOUND', () => [shelf(), counter()]],
    ['delete', () => '/v1/apps/installs/absent', undefined, 'APP_NOT_INSTALLED', () => [shelf()]],
    ['post', () => '/v1/apps/installs/counter/call', { method: 'count', input: { extra: 1 } }, 'INVALID_INPUT', () => [counter()]],
    ['post', () => '/v1/apps/installs/counter/backend-calls', { origin: 'ftp://x' }, 'INVALID_ORIGIN', () => [counter()]],
    ['delete', () => '/v1/apps/installs/counter/backend-calls?origin=ftp://x', undefined, 'INVALID_ORIGIN', () => [counter()]],
    ['put', () => '/v1/apps/installs/counter/connections/mail', { nope: 1 }, 'INVALID_REQUEST', () => [counter()]],
    ['delete', () => '/v1/apps/installs/absent/connections/mail', undefined, 'APP_NOT_INSTALLED', () => [shelf()]],
    ['post', () => '/v1/apps/installs/counter/connections/mail/reveal', undefined, 'CLAIM_REQUIRED', () => [counter()]],
    ['post', () => '/v1/apps/installs/counter/vetkeys', { derivationPath: 'p' }, 'INVALID_REQUEST', () => [counter()]],
    // The shell's lasting sign-in (its other refusals: test/gate/shell-sign-in.test.ts)
    ['post', () => '/v1/auth/sign-in', undefined, 'SHELL_HEADER_MISSING', () => [config()]],
    ['post', () => '/v1/auth/refresh', undefined, 'REFRESH_MISSING', () => [config()], { 'x-neuron-shell': '1' }],
    ['delete', () => '/v1/auth/refresh', undefined, 'SHELL_HEADER_MISSING', () => [config()], { cookie: 'neuron_refresh=x' }],
  ]

  it('covers every mutating route of the API', () => {
    const routeOf = (method: string, path: string) =>
      ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path.split('?')[0]!))?.path
    const covered = new Set(rows.map(([method, path]) => `${method} ${routeOf(method, path().replace(/\{|\}/g, ''))}`))
    // Not writes to a stored object: the dev sign-in (no object), the MCP endpoint (its tools are
    // the session routes above), and recall (a read with a body).
    const exempt = new Set(['post /v1/dev/token', 'post /v1/mcp', 'post /v1/memory/recall'])
    const mutating = ROUTES.filter((r) => r.method !== 'get').map((r) => `${r.method} ${r.path}`).filter((r) => !exempt.has(r))
    expect(mutating.filter((r) => !covered.has(r))).toEqual([])
  })

  it.each(rows.map((row, i) => [`${i + 1}: ${row[0].toUpperCase()} refused with ${row[3]}`, row] as const))('%s', async (_name, row) => {
    const [method, path, body, code, watched, headers] = row
    const resolved = typeof body === 'function' ? (body as () => unknown)() : body
    const objects = watched()
    const before = await settledRead(objects)
    const init: RequestInit = { method: method.toUpperCase(), headers: { ...(resolved === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }
    if (resolved !== undefined) init.body = JSON.stringify(resolved)
    const res = await api(path(), init)
    const answered = ((await res.json()) as { error?: { code: string } }).error?.code
    expect(answered, `${method} ${path()}`).toBe(code)
    expect(await settledRead(objects), `${method} ${path()} left its objects as they were`).toEqual(before)
  })
})
