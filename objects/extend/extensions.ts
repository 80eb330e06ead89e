/**
 * What a deployment adds to Neuron in its own code (docs/extending.md): its own tools, made with
 * `Tool.make` or `jsonSchemaTool` exactly as the built-ins are, its own catalog rows (a vendor
 * at a base URL with its models and their limits), and its own agent profiles (objects/agents/). `composeExtensions` checks them once, when the
 * deployment's Worker module is evaluated, so a name that shadows a built-in, a vendor row that
 * repeats one or a profile with a field Neuron does not know throws a coded error before the Worker serves anything, never in some session's turn.
 *
 * The checked extensions are immutable and reach the objects through their classes
 * (worker/neuron.ts subclasses them): the same value for every request, nothing set at runtime.
 */
import { AgentName, AgentProfile } from '../agents/profile.ts'
import { NeuronError } from '../core/errors.ts'
import { AGENT_LIMITS } from '../core/limits.ts'
import { parseOrThrow } from '../core/validate.ts'
import type { ProviderRow } from '../llm/catalog.ts'
import { CATALOG_SNAPSHOT } from '../llm/catalog-snapshot.ts'
import { PROVIDER_TOOL_NAME_MAX } from '../tools/mcp/servers.ts'
import type { Tool } from '../tools/tool.ts'

/**
 * The names a session registers itself (objects/session/wiring/toolset.ts, an orchestration agent's tools in
 * objects/session/agent/agent.ts). test/extend/builtin-names.test.ts compares this list with what a real
 * session registers, so a new built-in cannot be left out of it.
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = ['skill', 'calculator', 'memory_remember', 'memory_recall', 'memory_forget', 'wait', 'schedule_create', 'schedule_list', 'schedule_delete', 'read', 'write', 'edit', 'glob', 'grep', 'apply_patch', 'bash', 'plan', 'declare', 'report']

/** A deployment's own tools by name, its own catalog rows, and its own agent profiles. */
export interface ExtensionsInput {
  /** Tools by the name the model calls them: 1–64 of `A-Za-z0-9_-`, none a built-in's. */
  tools?: Record<string, Tool>
  /** Vendors added to the bundled catalog; a row's `id` may not repeat a bundled vendor's. */
  models?: ProviderRow[]
  /** Agent profiles by name (objects/agents/profile.ts); `default` overrides fields of Neuron's own. */
  agents?: Record<string, AgentProfile>
}

/** The checked, frozen extensions the objects read. */
export interface Extensions {
  readonly tools: ReadonlyMap<string, Tool>
  /** The bundled rows followed by the deployment's. */
  readonly rows: ProviderRow[]
  /** The deployment's agent profiles, checked. */
  readonly agents: ReadonlyMap<string, AgentProfile>
}

/** A deployment that adds nothing: Neuron's own worker. */
export const NO_EXTENSIONS: Extensions = Object.freeze({ tools: new Map(), rows: CATALOG_SNAPSHOT, agents: new Map() })

/** A tool's name as vendors accept it: 1–64 of `A-Za-z0-9_-`. */
export const TOOL_NAME = new RegExp(`^[A-Za-z0-9_-]{1,${PROVIDER_TOOL_NAME_MAX}}$`)

/**
 * Checks a deployment's extensions: `TOOL_NAME_INVALID`, `TOOL_NAME_TAKEN` (a built-in's name),
 * `PROVIDER_TAKEN` (a vendor id already in the catalog), `AGENT_NAME_INVALID`, `AGENT_INVALID` (a
 * profile field unknown or out of bounds, named by its path), `AGENTS_TOO_MANY`, all status 500
 * (the deployment is misconfigured).
 *
 * @example
 * composeExtensions({ tools: { weather } }).tools.get('weather') // weather
 * composeExtensions({ tools: { calculator: weather } })          // throws TOOL_NAME_TAKEN
 * composeExtensions({ agents: { reviewer: { tools: ['read', 'grep'] } } }).agents.get('reviewer')
 */
export function composeExtensions(input: ExtensionsInput = {}): Extensions {
  if (Object.keys(input.tools ?? {}).length === 0 && (input.models ?? []).length === 0 && Object.keys(input.agents ?? {}).length === 0) return NO_EXTENSIONS
  const tools = new Map<string, Tool>()
  for (const [name, tool] of Object.entries(input.tools ?? {})) {
    if (!TOOL_NAME.test(name)) {
      throw new NeuronError('TOOL_NAME_INVALID', `tool ${JSON.stringify(name.slice(0, 80))}: a name is 1–${PROVIDER_TOOL_NAME_MAX} characters of A-Za-z0-9_-`, { status: 500, details: { tool: name.slice(0, 200) } })
    }
    if (BUILTIN_TOOL_NAMES.includes(name)) {
      throw new NeuronError('TOOL_NAME_TAKEN', `tool ${name} would shadow Neuron's built-in ${name}; give it another name`, { status: 500, details: { tool: name } })
    }
    if (typeof tool?.execute !== 'function' || typeof tool.input?.safeParse !== 'function' || typeof tool.output?.safeParse !== 'function') {
      throw new NeuronError('TOOL_INVALID', `tool ${name} is not made with Tool.make or jsonSchemaTool`, { status: 500, details: { tool: name } })
    }
    tools.set(name, tool)
  }
  const rows = [...CATALOG_SNAPSHOT]
  for (const row of input.models ?? []) {
    if (rows.some((known) => known.id === row.id)) {
      throw new NeuronError('PROVIDER_TAKEN', `catalog vendor ${row.id} is already in the catalog; give the added row its own id`, { status: 500, details: { provider: row.id } })
    }
    rows.push(row)
  }
  return Object.freeze({ tools, rows, agents: checkAgents(input.agents ?? {}) })
}

/** The deployment's profiles, each name and profile checked as a config document's are. */
function checkAgents(input: Record<string, unknown>): ReadonlyMap<string, AgentProfile> {
  const entries = Object.entries(input)
  if (entries.length > AGENT_LIMITS.count) {
    throw new NeuronError('AGENTS_TOO_MANY', `a deployment defines at most ${AGENT_LIMITS.count} agent profiles, not ${entries.length}`, { status: 500, details: { count: entries.length } })
  }
  const agents = new Map<string, AgentProfile>()
  for (const [name, profile] of entries) {
    if (!AgentName.safeParse(name).success) {
      throw new NeuronError('AGENT_NAME_INVALID', `agent ${JSON.stringify(name.slice(0, 80))}: a name is 1–64 of a-z, 0-9, _ and -, starting with a letter or digit`, { status: 500, details: { agent: name.slice(0, 200) } })
    }
    try {
      agents.set(name, Object.freeze(parseOrThrow(AgentProfile, profile, 'AGENT_INVALID', 500)))
    } catch (error) {
      const { message, details } = error as NeuronError
      throw new NeuronError('AGENT_INVALID', `agent ${name}: ${message}`, { status: 500, details: { agent: name, ...details } })
    }
  }
  return agents
}
