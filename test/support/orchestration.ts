import { env } from 'cloudflare:workers'
import type { Caller } from '../../objects/access/authorize.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { OrchestrationView } from '../../objects/orchestration/state.ts'
import { OWNER, postJson } from './api.ts'
import { idOf } from './auth.ts'
import { uniqueName } from './ledger.ts'

export const owner: Caller = { id: idOf(OWNER), claims: [] }

/**
 * Local-model instructions for one package: declare `writes` (and `reads`), then, once
 * cleared, work for about `slowMs` per chunk and report `result`.
 */
export function script(result: string, declaration: { reads?: string[]; writes?: string[] } = {}, slowMs = 0): string {
  return [
    `/beat declare /tool declare ${JSON.stringify({ reads: declaration.reads ?? [], writes: declaration.writes ?? [] })}`,
    ...(slowMs > 0 ? [`/beat execute /slow ${slowMs}`] : []),
    `/beat execute /tool report ${JSON.stringify({ result })}`,
  ].join('\n')
}

/** Creates an orchestration through the route; returns its id and the created view. */
export async function newOrchestration(body: Record<string, unknown>, as = OWNER) {
  const id = uniqueName('orch')
  const res = await postJson('/v1/orchestrations', { id, goal: 'test goal', ...body }, as)
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`)
  return { id, view: (await res.json()) as OrchestrationView, stub: env.ORCHESTRATIONS.getByName(id) }
}

/** Polls the view until `done` holds. */
export async function waitUntil(id: string, done: (view: OrchestrationView) => boolean, timeoutMs = 30_000): Promise<OrchestrationView> {
  const stub = env.ORCHESTRATIONS.getByName(id)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const view = await stub.view(owner)
    if (done(view)) return view
    if (Date.now() > deadline) throw new Error(`orchestration ${id} did not get there: ${JSON.stringify(view, null, 1)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export const finished = (view: OrchestrationView) => view.status !== 'running'

/** Every decision of the orchestration (or of one sub-address), oldest first. */
export async function decisions(id: string, address?: string): Promise<Stored[]> {
  const stub = env.ORCHESTRATIONS.getByName(id)
  const all: Stored[] = []
  let after = 0
  for (;;) {
    const page = await stub.history(owner, after, 1000, address)
    all.push(...(page.items as Stored[]))
    if (page.next === null) return all
    after = page.next
  }
}

/** The sequence of the first decision of `type` about package `pkg`. */
export function seqOf(list: Stored[], type: string, pkg: string): number {
  const found = list.find((e) => e.type === `orchestration.package.${type}` && (e.payload as { package: string }).package === pkg)
  if (!found) throw new Error(`no ${type} for ${pkg}`)
  return found.seq
}
