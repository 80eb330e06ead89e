/**
 * An agent profile: a named agent as data. A session runs one profile (`POST /v1/sessions
 * {agent}`; none given: `default`), which says which model it starts on, what it is told, which
 * tools it is offered, its permission rules, its skills, how many provider turns a prompt may use
 * and which model compacts its transcript. Profiles come from three places (resolve.ts): Neuron's
 * own (`BUILTIN_AGENTS`), the deployment's code (`createNeuron({ agents })`) and the principal's
 * config document (`agents`); the schema here validates the latter two alike.
 *
 * Pure: zod and the limits only, so a client can import it.
 */
import { z } from 'zod'
import { AGENT_LIMITS } from '../core/limits.ts'
import { PermissionSection } from '../permission/policy.ts'
import { InlineSkill } from '../config/skill-schema.ts'

/** A profile's name: what `POST /v1/sessions {agent}` and an orchestration package name. */
export const AgentName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'an agent name is 1–64 of a-z, 0-9, _ and -, starting with a letter or digit')

const ModelRef = z.string().max(256).regex(/^[^/\s]+\/[^\s]+$/, 'must be provider/model, e.g. local/echo-1')

/** One profile's fields; every one is optional, and a layer sets only the fields it names. */
export const AgentProfileFields = z.strictObject({
  /** What the agent is for, as `GET /v1/agents` lists it. */
  description: z.string().min(1).max(1024).optional(),
  /** The model a session of this agent starts on, unless its create request names one. */
  model: ModelRef.optional(),
  /** What the model is told, as the `agent.instructions` context source. */
  instructions: z.array(z.string().min(1).max(AGENT_LIMITS.bytes)).max(AGENT_LIMITS.instructions).optional(),
  /** The tools offered, as names or `*` wildcards over every tool a session could be offered; absent: all of them. */
  tools: z.array(z.string().min(1).max(256)).max(AGENT_LIMITS.tools).optional(),
  /** Permission rules of the profile layer, between the principal's config and the session's (objects/permission/policy.ts). */
  permission: PermissionSection.optional(),
  /** Skills the agent has besides its principal's config's. */
  skills: z.array(InlineSkill).max(64).optional(),
  /** Provider turns one prompt may use before the loop halts (`turn-limit`). */
  maxSteps: z.number().int().min(1).max(AGENT_LIMITS.maxSteps).optional(),
  /** The model that summarises the transcript when it is compacted; absent: the session's model. */
  compactionModel: ModelRef.optional(),
})

/** A profile as a layer gives it, bounded in size as a whole. */
export const AgentProfile = AgentProfileFields.refine((profile) => JSON.stringify(profile).length <= AGENT_LIMITS.bytes, {
  message: `an agent profile is at most ${AGENT_LIMITS.bytes} bytes of JSON`,
})

export type AgentProfile = z.output<typeof AgentProfileFields>

/** The config document's `agents` section: profiles by name. */
export const AgentsSection = z
  .record(AgentName, AgentProfile)
  .refine((agents) => Object.keys(agents).length <= AGENT_LIMITS.count, { message: `at most ${AGENT_LIMITS.count} agents` })

/** The agent a session runs when it names none. */
export const DEFAULT_AGENT = 'default'

/**
 * Neuron's own profiles. `default` sets nothing: every tool, the session's model, the runner's
 * step limit; a deployment or a principal may override its fields under the same name.
 *
 * @example
 * BUILTIN_AGENTS.default.description // "Neuron's default agent: …"
 */
export const BUILTIN_AGENTS: Readonly<Record<string, AgentProfile>> = Object.freeze({
  [DEFAULT_AGENT]: { description: "Neuron's default agent: every tool offered, the session's model, the runner's step limit" },
})
