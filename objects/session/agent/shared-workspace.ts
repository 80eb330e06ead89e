/**
 * The workspace a package's agent session works in: its orchestration's shared one when the
 * orchestration was created with `workspace: 'shared'`, else the session's own. The work tools
 * take it as their `WorkspaceHost` (objects/workspace/host.ts), so they are the same tools either
 * way. The shared one is reached over RPC (`packageWorkspace` on the OrchestrationObject,
 * objects/orchestration/workspace.ts), each call naming the agent's token and its running turn,
 * which is how the orchestration authorizes it (the package, its beat, its declared writes).
 *
 * Which of the two it is, is asked once per isolate and kept: it is fixed when the orchestration
 * is created.
 */
import type { Env } from '../../core/env.ts'
import { settled } from '../../core/rpc.ts'
import type { WorkspaceHost } from '../../workspace/host.ts'
import type { Committed, Listing } from '../../workspace/store.ts'
import type { FileEntry } from '../../workspace/tree.ts'
import type { PackageWorkspaceCall } from '../../agent-link/workspace.ts'
import { PACKAGE_WORKSPACE_CALL } from '../../core/limits.ts'
import type { AgentLink } from './agent.ts'

/**
 * @example
 * const workspace = agent ? packageWorkspace(agent, env.ORCHESTRATIONS, sessionWorkspace) : sessionWorkspace
 * registry.register('write', fileTools(workspace).write)
 */
export function packageWorkspace(agent: Pick<AgentLink, 'address' | 'currentTurn'>, orchestrations: Env['ORCHESTRATIONS'], own: WorkspaceHost): WorkspaceHost {
  const orchestration = settled(orchestrations.getByName(agent.address.orchestration))
  const call = <T>(request: PackageWorkspaceCall): Promise<T> => {
    const { prompts, by } = agent.currentTurn()
    return orchestration.packageWorkspace(agent.address.token, { ...request, prompts, principals: by }) as Promise<T>
  }
  let mode: Promise<unknown> | null = null
  const shared = async () => {
    mode ??= call({ op: 'mode' }).catch((error: unknown) => {
      mode = null
      throw error
    })
    return (await mode) === 'shared'
  }
  return {
    entry: async (path) => ((await shared()) ? call<FileEntry | null>({ op: 'entry', path }) : own.entry(path)),
    list: async (dir, options = {}) => ((await shared()) ? call<Listing>({ op: 'list', dir, ...options }) : own.list(dir, options)),
    read: async (path) => ((await shared()) ? (await call<[string, Uint8Array | null][]>({ op: 'read', paths: [path] }))[0]![1] : own.read(path)),
    readMany: async (paths) => {
      if (!(await shared())) return own.readMany(paths)
      const unique = [...new Set(paths)]
      const out = new Map<string, Uint8Array | null>()
      const per = PACKAGE_WORKSPACE_CALL.readPaths
      for (let i = 0; i < unique.length; i += per) for (const [path, bytes] of await call<[string, Uint8Array | null][]>({ op: 'read', paths: unique.slice(i, i + per) })) out.set(path, bytes)
      return out
    },
    commit: async (writes, by) => ((await shared()) ? call<Committed>({ op: 'commit', writes, by }) : own.commit(writes, by)),
  }
}
