/**
 * A session's uploaded tool modules: the tools of its owner's modules (objects/modules/store.ts),
 * listed before each drain and layered over the built-ins in the session's `ToolRegistry` under the
 * scope `module:<id>`, one more source beside the MCP servers' tools. Each tool is a
 * `jsonSchemaTool`, so its input is validated before anything runs, and `require: 'owner'`: it runs
 * the owner's code with the owner's grants. A call asks the permission policy (source
 * `module:<id>`; acting asks by default), then runs in the owner's shelf, which runs the code in its
 * isolate under its bounds and checks the output (store.ts); the session bounds the call once more
 * by its own clock and by the turn's signal, so nothing a module does holds a turn longer.
 *
 * The version a call ran is the one the step offered: each tool's description names the module,
 * its version and hash, so the step's tool-spec artifact (`step.started`'s `tools`) records it, and
 * a call settles only against the registration its turn was shown; the shelf refuses a version
 * that is no longer current (`TOOL_STALE`). Registrations change only when the list changes.
 */
import { NeuronError } from '../core/errors.ts'
import { BACKEND_LIMITS } from '../core/limits.ts'
import { canonicalJson, type Json } from '../ledger/json.ts'
import { jsonSchemaTool } from '../tools/json-schema-tool.ts'
import type { Registration, ToolRegistry } from '../tools/registry.ts'
import type { ModuleVersion } from './store.ts'

/** How much longer than a tool's own deadline the session waits for the shelf's answer. */
const MARGIN_MS = 5_000

export interface ModuleToolsetDeps {
  registry: ToolRegistry
  /** The owner's modules at their current versions; empty when the owner has none. */
  modules(): Promise<ModuleVersion[]>
  /** Runs one tool of a module version in the owner's shelf; its checked output. */
  call(module: string, hash: string, tool: string, input: unknown): Promise<{ output: Json }>
}

/**
 * @example
 * const modules = new ModuleToolset({ registry: tools, modules: () => shelf.toolModules(), call: (m, h, t, i) => shelf.callModuleTool(owner, m, h, t, i) })
 * await modules.refresh() // before a drain: the owner's current versions, layered
 */
export class ModuleToolset {
  private registrations: Registration[] = []
  private listed: string | null = null
  private refreshing: Promise<void> | null = null

  constructor(private readonly deps: ModuleToolsetDeps) {}

  /** Brings the registrations in line with the owner's current modules; never throws. */
  refresh(): Promise<void> {
    this.refreshing ??= this.sync()
      .catch((error: unknown) => console.error('modules: tool refresh failed', error))
      .finally(() => (this.refreshing = null))
    return this.refreshing
  }

  private async sync(): Promise<void> {
    const modules = await this.deps.modules()
    const listed = canonicalJson(modules.map(({ module, hash }) => [module, hash]))
    if (listed === this.listed) return
    for (const registration of this.registrations) registration.close()
    this.registrations = []
    this.listed = listed
    for (const version of modules) for (const tool of version.tools) this.layer(version, tool)
  }

  private layer(version: ModuleVersion, tool: ModuleVersion['tools'][number]): void {
    const { module, hash } = version
    const existing = this.deps.registry.resolve(tool.name)
    // A module never shadows a built-in, the deployment's or an agent's tool (its upload was refused such a name; one added since wins).
    if (existing) {
      console.warn('modules: tool left out, its name is taken', { module, tool: tool.name, by: existing.scope })
      return
    }
    const source = `module:${module}`
    const deadline = (tool.timeoutMs ?? BACKEND_LIMITS.wallMs) + MARGIN_MS
    const definition = jsonSchemaTool({
      description: `${tool.description} (tool module ${module} version ${version.version}, ${hash.slice(0, 12)})`,
      inputSchema: tool.input,
      require: 'owner',
      execute: async (input, context) => {
        await context.permission.assert({ tool: tool.name, source, subjects: [], input, reason: `${tool.name} runs the owner's tool module ${module} (version ${version.version})` })
        const { output } = await bounded(this.deps.call(module, hash, tool.name, input), context.signal, deadline, `${tool.name} (tool module ${module} version ${version.version})`)
        return canonicalJson(output)
      },
    })
    this.registrations.push(this.deps.registry.register(tool.name, definition, source))
  }
}

/** `work`, or the turn's abort, or `BACKEND_TIMEOUT` once `ms` have passed: whichever comes first. */
async function bounded<T>(work: Promise<T>, signal: AbortSignal, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  let onAbort: (() => void) | undefined
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NeuronError('BACKEND_TIMEOUT', `${what} did not answer within ${ms} ms`, { status: 504 })), ms)
    onAbort = () => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work, stop])
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort!)
  }
}
