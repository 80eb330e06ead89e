/**
 * An orchestration created with `workspace: 'shared'`: its packages' file tools act on the
 * orchestration's one workspace, over RPC, on the local model. A writer and a reader ordered by
 * the DAG (the reader sees what the writer wrote); two unordered writers of overlapping
 * `workspace:` globs serialised by clearance; a write outside the package's declared writes
 * refused with nothing written; the owner's read routes; and the RPC's own refusals.
 */
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { api } from '../support/api.ts'
import { decisions, finished, newOrchestration, owner, seqOf, waitUntil } from '../support/orchestration.ts'
import { events } from '../support/session.ts'

/** Local-model instructions: declare, then (once cleared) call `tools` beside the report. */
function work(result: string, declaration: { reads?: string[]; writes?: string[] }, ...tools: string[]): string {
  return [
    `/beat declare /tool declare ${JSON.stringify({ reads: declaration.reads ?? [], writes: declaration.writes ?? [] })}`,
    ...tools.map((tool) => `/beat execute /tool ${tool}`),
    `/beat execute /tool report ${JSON.stringify({ result })}`,
  ].join('\n')
}

const write = (path: string, content: string) => `write ${JSON.stringify({ path, content })}`

/** What each file tool call of a session answered: its output, or its failure code. */
async function toolOutcomes(session: string) {
  return (await events(session))
    .filter((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
    .map((e) => e.payload as { toolCallId: string; name?: string; content?: string; error?: { code: string } })
    .map((p) => (p.error ? { code: p.error.code } : { output: JSON.parse(p.content!) as Record<string, unknown> }))
}

/** The code of a refusal the RPC answered as a value (objects/core/rpc.ts), or undefined. */
const failureCode = (answer: unknown) => (answer as { __neuronFailure?: { error: { code: string } } }).__neuronFailure?.error.code

/** A workspace file as the owner's route answers it. */
const fileText = async (id: string, path: string) => new TextDecoder().decode(await (await api(`/v1/orchestrations/${id}/workspace/file?path=${path}`)).arrayBuffer())

const changes = async (id: string) => (await decisions(id, 'workspace')).filter((e: Stored) => e.type === 'workspace.changed')

describe("an orchestration's shared workspace", () => {
  beforeAll(async () => {
    const rules = ['write', 'edit', 'apply_patch', 'bash'].map((tool) => ({ tool, action: 'allow' }))
    const put = await api('/v1/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permission: { rules } }) })
    expect(put.status).toBe(200)
  })

  it('a reader the DAG puts after a writer reads what the writer wrote; each change names its package and tool call', async () => {
    const plan = [
      { id: 'a', needs: [], instructions: work('a done', { writes: ['workspace:notes/**'] }, write('notes/a.md', 'from a')) },
      { id: 'b', needs: ['a'], instructions: work('b done', { reads: ['workspace:notes/a.md'] }, `read ${JSON.stringify({ path: 'notes/a.md' })}`) },
    ]
    const { id } = await newOrchestration({ plan, workspace: 'shared' })
    const view = await waitUntil(id, finished, 60_000)
    expect(view).toMatchObject({ status: 'completed', workspace: 'shared' })
    const [a, b] = view.packages
    expect(await toolOutcomes(b!.session!)).toContainEqual({ output: expect.objectContaining({ path: 'notes/a.md', text: 'from a' }) })
    // The change lives in the orchestration's ledger, authored by a's agent, naming a and its tool call.
    const [change, ...more] = await changes(id)
    expect(more).toEqual([])
    expect(change).toMatchObject({ author: `agent:${a!.agent}`, payload: { path: 'notes/a.md', before: null, package: 'a', by: expect.stringMatching(/^call_/) } })
    // Nothing went to the writer's own workspace.
    expect(await (await api(`/v1/sessions/${a!.session}/workspace`)).json()).toEqual({ entries: [], next: null })
    // The owner reads the shared tree through the routes a session's workspace has; a stranger is told it does not exist.
    const listing = (await (await api(`/v1/orchestrations/${id}/workspace`)).json()) as { entries: { path: string }[] }
    expect(listing.entries.map((e) => e.path)).toEqual(['notes/a.md'])
    expect(await fileText(id, 'notes/a.md')).toBe('from a')
    expect((await api(`/v1/orchestrations/${id}/workspace/tar`)).headers.get('content-type')).toBe('application/x-tar')
    expect((await api(`/v1/orchestrations/${id}/workspace`, {}, 'mallory')).status).toBe(404)
    const history = (await (await api(`/v1/orchestrations/${id}/history?address=workspace`)).json()) as { items: Stored[] }
    expect(history.items.map((e) => e.type)).toEqual(['workspace.changed'])
  })

  it('two unordered writers of overlapping globs are serialised by clearance, and their writes land in that order', async () => {
    const plan = ['p', 'q'].map((pkg) => ({ id: pkg, needs: [], instructions: work(`${pkg} done`, { writes: ['workspace:shared/**'] }, write('shared/log.md', `by ${pkg}`)) }))
    const { id } = await newOrchestration({ plan, workspace: 'shared' })
    const view = await waitUntil(id, finished, 60_000)
    expect(view.status).toBe('completed')
    const log = await decisions(id)
    const refused = log.find((e) => e.type === 'orchestration.package.refused')!
    const [first, second] = (refused.payload as { edges: [string, string][] }).edges[0]!
    expect(seqOf(log, 'executing', second)).toBeGreaterThan(seqOf(log, 'reported', first))
    expect((await changes(id)).map((e) => (e.payload as { package: string }).package)).toEqual([first, second])
    expect(await fileText(id, 'shared/log.md')).toBe(`by ${second}`)
  })

  it('a write outside the declared workspace writes is refused with a code, and nothing is written', async () => {
    const plan = [{ id: 'w', needs: [], instructions: work('w done', { writes: ['workspace:notes/**'] }, write('src/evil.ts', 'x')) }]
    const { id } = await newOrchestration({ plan, workspace: 'shared' })
    const view = await waitUntil(id, finished, 60_000)
    const session = view.packages[0]!.session!
    expect(await toolOutcomes(session)).toContainEqual({ code: 'WORKSPACE_WRITE_UNDECLARED' })
    expect(await changes(id)).toEqual([])
    expect(await (await api(`/v1/orchestrations/${id}/workspace`)).json()).toEqual({ entries: [], next: null })
    expect(await (await api(`/v1/sessions/${session}/workspace`)).json()).toEqual({ entries: [], next: null })
  })

  it('the RPC refuses a token with no package, a write before clearance, a finished package, and an orchestration whose packages keep their own', async () => {
    const write1 = { op: 'commit', writes: [{ path: 'notes/x.md', bytes: new TextEncoder().encode('x') }], by: 'call_x', principals: [] }
    const plan = [{ id: 'a', needs: [], instructions: work('a done', { writes: ['workspace:notes/**'] }) }]
    const shared = await newOrchestration({ plan, workspace: 'shared' })
    const view = await waitUntil(shared.id, finished, 60_000)
    const stub = env.ORCHESTRATIONS.getByName(shared.id)
    const codeOf = async (token: string, call: unknown) => failureCode(await stub.packageWorkspace(token, call))
    expect(await stub.packageWorkspace('stranger', { op: 'mode' })).toBe('own')
    expect(await stub.packageWorkspace(view.packages[0]!.agent!, { op: 'mode' })).toBe('shared')
    expect(await codeOf('stranger', write1)).toBe('NOT_YOUR_AGENT')
    const principals = [`orchestration:${shared.id}`]
    expect(await codeOf(view.packages[0]!.agent!, { ...write1, principals })).toBe('PACKAGE_NOT_ACTIVE')
    expect(await codeOf(view.packages[0]!.agent!, { op: 'commit', writes: 'nope' })).toBe('INVALID_REQUEST')
    expect(await changes(shared.id)).toEqual([])
    // A package waiting for a human's clearance may read the shared tree, not write it.
    const human = await newOrchestration({ plan: [{ ...plan[0]!, clearance: 'human' }], workspace: 'shared' })
    const waiting = (await waitUntil(human.id, (v) => v.packages[0]!.beat === 'awaiting-human')).packages[0]!
    const humanStub = env.ORCHESTRATIONS.getByName(human.id)
    const turn = { prompts: [], principals: [`orchestration:${human.id}`] }
    expect(failureCode(await humanStub.packageWorkspace(waiting.agent!, { ...write1, ...turn }))).toBe('PACKAGE_NOT_CLEARED')
    expect(await humanStub.packageWorkspace(waiting.agent!, { op: 'entry', path: 'notes/x.md', ...turn })).toBeNull()
    expect(failureCode(await humanStub.packageWorkspace(waiting.agent!, { op: 'entry', path: 'notes/x.md', prompts: [], principals: ['user#mallory'] }))).toBe('AGENT_INPUT_REFUSED')
    expect(await changes(human.id)).toEqual([])
    await humanStub.cancel(owner, {})
    const own = await newOrchestration({ plan })
    const ownView = await waitUntil(own.id, finished, 60_000)
    expect(ownView.workspace).toBe('own')
    const ownStub = env.ORCHESTRATIONS.getByName(own.id)
    expect(await ownStub.packageWorkspace(ownView.packages[0]!.agent!, { op: 'mode' })).toBe('own')
    expect(failureCode(await ownStub.packageWorkspace(ownView.packages[0]!.agent!, { op: 'entry', path: 'a' }))).toBe('WORKSPACE_NOT_SHARED')
    expect((await ownStub.view(owner)).workspace).toBe('own')
  })
})
