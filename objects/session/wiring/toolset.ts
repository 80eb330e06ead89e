/**
 * What a session offers its model besides the conversation, composed in one place: the owner's
 * config instructions and skills index and the session's pinned memories as context sources, the `skill` tool, the tools of the
 * MCP servers the effective config lists and of the owner's uploaded tool modules (each layered
 * over the built-ins, refreshed before each drain), the built-in tools (the work tools over the session's workspace among them, or over its orchestration's shared one), the deployment's own tools, and an orchestration agent's tools when the session is one.
 * Registration order is the order the model is offered them, so it does not change here.
 * The agent profile the session runs narrows the whole offer here, once: every source's tools,
 * registered now or later (MCP, host tools), pass its `tools` filter; it adds its instructions
 * (`agent.instructions`) and its skills.
 *
 * @example
 * const { mcp, modules, agent } = composeToolset({ env, name, tools, sources, config: () => overrides.effective(), … })
 */
import type { Caller } from '../../access/authorize.ts'
import { instructionsOf } from '../../config/instructions.ts'
import { skillIndex, skillsOf, skillTool } from '../../config/skills.ts'
import { PINNED_KEY, pinnedMemories } from '../../graph/pinned.ts'
import type { Json, JsonObject } from '../../ledger/json.ts'
import type { BridgeDraft } from '../../agent-link/bridge.ts'
import { settled } from '../../core/rpc.ts'
import { calculator } from '../../tools/builtins/calculator.ts'
import { memoryTools, type MemoryHost } from '../../tools/builtins/memory.ts'
import { wait } from '../../tools/builtins/wait.ts'
import { type ScheduleAccess, scheduleTools } from '../../tools/builtins/schedules.ts'
import { bashTool } from '../../tools/builtins/bash.ts'
import { fileTools, type WorkspaceAccess } from '../../tools/builtins/files.ts'
import { applyPatchTool } from '../../tools/builtins/patch.ts'
import { embeddedExecutor } from '../../workspace/bash/embedded.ts'
import { McpToolset } from '../../tools/mcp/toolset.ts'
import { ModuleToolset } from '../../modules/toolset.ts'
import type { ModuleVersion } from '../../modules/store.ts'
import { exists } from '../../directory/keys.ts'
import { shelfKey } from '../../apps/installation.ts'
import { mcpServersOf } from '../../tools/mcp/servers.ts'
import type { ToolRegistry } from '../../tools/registry.ts'
import type { Tool } from '../../tools/tool.ts'
import { type AgentLink, agentLinkOf, type AgentTurns } from '../agent/agent.ts'
import { packageWorkspace } from '../agent/shared-workspace.ts'
import type { ContextSources } from '../turn/context-sources.ts'
import type { SessionProfile } from './session-profile.ts'
import type { SessionCore } from './session-core.ts'

/** What the toolset needs of its session. */
export interface ToolsetHost extends Pick<SessionCore, 'env' | 'name' | 'owner'> {
  tools: ToolRegistry
  /** The deployment's own tools by name (objects/extend/extensions.ts), offered after the built-ins. */
  custom: ReadonlyMap<string, Tool>
  sources: ContextSources
  /** The owner's config document with this session's overrides laid over it. */
  config: () => Promise<JsonObject>
  /** The memory every turn's context may read (`memory.pinned`; authority.ts); null before the session exists. */
  contextMemory: () => Caller | null
  /** The session's conversation node in a graph, written if missing (memories regard it). */
  conversation: MemoryHost['conversation']
  /** Where an agent's undeliverable step boundary goes. */
  deadLetter: (draft: BridgeDraft, error: unknown) => void
  /** Where an agent keeps its running turn (used only when the session is one). */
  agentTurns: AgentTurns
  /** The session's workspace, which the work tools act on (workspace.ts). */
  workspace: WorkspaceAccess
  /** The session's schedules, acting for its owner (the `schedule_*` tools). */
  schedules: ScheduleAccess
  /** The agent profile the session runs (session-profile.ts). */
  profile: Pick<SessionProfile, 'offers' | 'instructions' | 'skills' | 'known'>
}

/** Registers the session's sources and tools; returns the MCP toolset, the modules' toolset and the agent link (or null). */
export function composeToolset(host: ToolsetHost): { mcp: McpToolset; modules: ModuleToolset; agent: AgentLink | null } {
  const { env, tools, sources, config, owner } = host
  // Every URL from the config is fetched under the one outbound policy (objects/outbound).
  const policy = { development: env.NEURON_ENV === 'development' }
  // Whatever registers a tool, now or later, the model is offered it only if the profile does; an
  // orchestration agent's own tools (declare, report, plan) are how it does its package: always offered.
  const agent = agentLinkOf(host.name, env.ORCHESTRATIONS, host.deadLetter, host.agentTurns, (names) => host.profile.known(names))
  const linked = new Set((agent?.tools() ?? []).map(([name]) => name))
  tools.offerOnly((name) => linked.has(name) || host.profile.offers(name))
  // The owner's config instructions, read from its config object; slow or failing never blocks a turn.
  sources.register('config.instructions', async () => instructionsOf(await config(), policy))
  sources.register('agent.instructions', () => host.profile.instructions())
  // The config's skills, then the profile's.
  const skills = async () => [...(await skillsOf(await config(), policy)), ...host.profile.skills()]
  sources.register('skills.index', async () => skillIndex(await skills()))
  tools.register('skill', skillTool(skills))
  const mcp = new McpToolset({
    registry: tools,
    servers: async () => mcpServersOf(await config()),
    access: async () => (owner() ? await settled(env.CONFIGS.getByName(owner())).mcpAccess(owner()) : { headers: {}, grants: {} }),
    token: async (server, url, stale) => (owner() ? await settled(env.CONFIGS.getByName(owner())).mcpAccessToken(owner(), server, url, stale) : null),
    development: policy.development,
  })
  sources.register('mcp.authorization', () => mcp.authorizationNote())
  // The pinned memories of the session's memory (the owner's graph, or a shared session's own);
  // nothing pinned says nothing, so a session without pins records no context change for it.
  sources.register(PINNED_KEY, async () => {
    const memory = host.contextMemory()
    const pinned = memory ? await pinnedMemories(env, memory) : []
    return pinned.length > 0 ? (pinned as unknown as Json) : null
  })
  const memory = memoryTools({ env, conversation: host.conversation })
  tools.register('calculator', calculator)
  tools.register('memory_remember', memory.remember)
  tools.register('memory_recall', memory.recall)
  tools.register('memory_forget', memory.forget)
  tools.register('wait', wait)
  const schedules = scheduleTools(host.schedules)
  tools.register('schedule_create', schedules.create)
  tools.register('schedule_list', schedules.list)
  tools.register('schedule_delete', schedules.delete)
  // The work tools over the session's workspace (docs/workspace.md), each asserting the policy itself;
  // a package's over its orchestration's when that is shared (agent/shared-workspace.ts).
  const workspace = agent ? packageWorkspace(agent, env.ORCHESTRATIONS, host.workspace) : host.workspace
  // An agent's report waits for its step's work-tool calls, so nothing it writes lands after it.
  const work = <T extends Tool>(tool: T): T => (agent ? agent.settlesBeforeReport(tool) : tool)
  const files = fileTools(workspace)
  tools.register('read', work(files.read))
  tools.register('write', work(files.write))
  tools.register('edit', work(files.edit))
  tools.register('glob', work(files.glob))
  tools.register('grep', work(files.grep))
  tools.register('apply_patch', work(applyPatchTool(workspace)))
  tools.register('bash', work(bashTool(workspace, embeddedExecutor)))
  for (const [name, tool] of host.custom) tools.register(name, tool, 'deployment')
  for (const [name, tool] of agent?.tools() ?? []) tools.register(name, tool)
  // The owner's uploaded tool modules, after every other tool so none is shadowed (objects/modules/).
  const shelf = () => settled(env.APP_SHELVES.getByName(owner()))
  const modules = new ModuleToolset({
    registry: tools,
    modules: async () => (owner() && (await exists(env, shelfKey(owner()))) ? ((await shelf().toolModules()) as unknown as ModuleVersion[]) : []),
    call: (module, hash, tool, input) => shelf().callModuleTool(owner(), module, hash, tool, input),
  })
  return { mcp, modules, agent }
}
