/**
 * Which agent profiles a principal sees, and what one of them is: Neuron's own (`builtin`), the
 * deployment's (`createNeuron({ agents })`) and the principal's config document's (`config`),
 * laid over each other field by field in that order. A user who writes a profile of a name the
 * deployment or Neuron already has changes just the fields they write: the principal's config
 * wins over the deployment's code, which wins over Neuron's own, as every other setting of the
 * user's config wins over what it was given.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'
import type { JsonObject } from '../ledger/json.ts'
import { wildcard } from '../permission/policy.ts'
import { type AgentProfile, AgentsSection, BUILTIN_AGENTS } from './profile.ts'

/** Where a profile's fields came from. */
export type AgentSource = 'builtin' | 'deployment' | 'config'

/** One profile as `GET /v1/agents` lists it: its merged fields, the layer that gave it last, and every layer that gave it. */
export interface AgentListing {
  name: string
  source: AgentSource
  layers: AgentSource[]
  profile: AgentProfile
}

/** The config document's profiles; a stored section that no longer reads (older schema) gives none. */
export function configAgents(document: JsonObject): Record<string, AgentProfile> {
  const parsed = AgentsSection.safeParse(document.agents ?? {})
  return parsed.success ? parsed.data : {}
}

/**
 * Every profile visible with this deployment's and this config document's, by name, sorted.
 *
 * @example
 * agentsOf(new Map([['reviewer', { tools: ['read'] }]]), { agents: { reviewer: { maxSteps: 4 } } }).get('reviewer')
 * // { name: 'reviewer', source: 'config', layers: ['deployment', 'config'], profile: { tools: ['read'], maxSteps: 4 } }
 */
export function agentsOf(deployment: ReadonlyMap<string, AgentProfile>, document: JsonObject): Map<string, AgentListing> {
  const layers: [AgentSource, Iterable<[string, AgentProfile]>][] = [
    ['builtin', Object.entries(BUILTIN_AGENTS)],
    ['deployment', deployment],
    ['config', Object.entries(configAgents(document))],
  ]
  const found = new Map<string, AgentListing>()
  for (const [source, profiles] of layers) {
    for (const [name, profile] of profiles) {
      const below = found.get(name)
      found.set(name, { name, source, layers: [...(below?.layers ?? []), source], profile: { ...below?.profile, ...profile } })
    }
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/**
 * The profile `name`, or `UNKNOWN_AGENT` (400) naming the ones there are.
 *
 * @example
 * resolveAgent('default', new Map(), {}).source // 'builtin'
 * resolveAgent('nobody', new Map(), {})         // throws UNKNOWN_AGENT
 */
export function resolveAgent(name: string, deployment: ReadonlyMap<string, AgentProfile>, document: JsonObject): AgentListing {
  const all = agentsOf(deployment, document)
  const found = all.get(name)
  if (found) return found
  throw unknownAgent(name, [...all.keys()])
}

/**
 * Refuses the first of `names` no layer defines (`UNKNOWN_AGENT`): the profiles a plan's packages name.
 *
 * @example
 * requireAgents(['reviewer'], deployment, document) // throws unless some layer defines reviewer
 */
export function requireAgents(names: Iterable<string>, deployment: ReadonlyMap<string, AgentProfile>, document: JsonObject): void {
  const all = agentsOf(deployment, document)
  for (const name of names) if (!all.has(name)) throw unknownAgent(name, [...all.keys()])
}

/** The error of a name no layer defines. */
export function unknownAgent(name: string, known: string[]): NeuronError {
  return new NeuronError('UNKNOWN_AGENT', `no agent profile ${JSON.stringify(name.slice(0, 80))}; there are: ${known.join(', ')}`, { status: 400, details: { agent: name.slice(0, 200), known } })
}

/**
 * Whether a profile offers the tool `name`: no `tools` offers every tool, otherwise a name must
 * match one of its wildcards (`*` is any characters; run on RE2, the patterns are the user's).
 *
 * @example
 * const offers = toolFilter(['calculator', 'mcp.github.*'])
 * offers('calculator') // true
 * offers('bash')       // false
 */
export function toolFilter(patterns: readonly string[] | undefined): (name: string) => boolean {
  if (patterns === undefined) return () => true
  const compiled = patterns.map(wildcard)
  return (name) => compiled.some((pattern) => pattern.testExact(name))
}
