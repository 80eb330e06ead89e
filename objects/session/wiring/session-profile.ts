/**
 * The agent profile a session runs (objects/agents/), as its turns read it: resolved from the
 * deployment's profiles and the owner's config document before each drain and again in the
 * background at each turn boundary, so a profile's change reaches its sessions from a later turn,
 * the way a config change does. The runner and the toolset read it synchronously: which tools
 * are offered, the step limit, the compaction model, the instructions and skills it adds.
 *
 * It fails closed: before the first resolution, when the owner's config cannot be read, or once
 * the profile is no longer defined anywhere, the session is offered no tools.
 *
 * @example
 * const profile = new SessionProfile({ name: () => state.agent, owner: () => state.owner, deployment, documentOf })
 * await profile.refresh()
 * profile.offers('calculator') // per the profile's `tools`
 */
import type { JsonObject } from '../../ledger/json.ts'
import { parseModelRef } from '../../llm/catalog.ts'
import type { AgentProfile } from '../../agents/profile.ts'
import { type AgentListing, requireAgents, resolveAgent, toolFilter } from '../../agents/resolve.ts'
import type { Skill } from '../../config/skills.ts'

/** What the session gives its agent. */
export interface SessionProfileHost {
  /** The profile's name, from the session's `created` event. */
  name(): string
  owner(): string
  /** The deployment's profiles (objects/extend/extensions.ts). */
  deployment: ReadonlyMap<string, AgentProfile>
  /** A principal's config document. */
  documentOf(owner: string): Promise<JsonObject>
}

/** What a session runs when its profile cannot be read: nothing offered. */
const CLOSED: AgentProfile = { tools: [] }

export class SessionProfile {
  private profile: AgentProfile = CLOSED
  private filter: (name: string) => boolean = toolFilter(CLOSED.tools)
  private loading: Promise<void> | null = null

  constructor(private readonly host: SessionProfileHost) {}

  /** A principal's config document, read from its config object. */
  documentOf(owner: string): Promise<JsonObject> {
    return this.host.documentOf(owner)
  }

  /**
   * The profile `name` as `owner` sees it, or `UNKNOWN_AGENT`: what a session is created with.
   *
   * @example
   * (await profile.lookup('user:ada', 'reviewer')).profile.model // 'local/echo-1'
   */
  async lookup(owner: string, name: string): Promise<AgentListing> {
    return resolveAgent(name, this.host.deployment, await this.host.documentOf(owner))
  }

  /**
   * Refuses the first of `names` the session's owner sees no profile of (`UNKNOWN_AGENT`): a
   * planner's plan naming the agents of its packages.
   *
   * @example
   * await profile.known(['reviewer', 'default'])
   */
  async known(names: string[]): Promise<void> {
    if (names.length > 0) requireAgents(names, this.host.deployment, await this.host.documentOf(this.host.owner()))
  }

  /** Resolves the profile again; never throws (a failure keeps what was resolved, or stays closed). */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null
    })
    return this.loading
  }

  /** Whether the tool `name` is offered (toolset.ts narrows the registry with it). */
  offers(name: string): boolean {
    return this.filter(name)
  }

  /** Provider turns one prompt may use; undefined: the runner's default. */
  maxSteps(): number | undefined {
    return this.profile.maxSteps
  }

  /** The model compactions run on; null: the session's own. */
  compactionModel(): { provider: string; model: string } | null {
    return this.profile.compactionModel ? parseModelRef(this.profile.compactionModel) : null
  }

  /** The `agent.instructions` context source: the profile's instructions, or null (nothing to say). Starts a background refresh. */
  instructions(): string | null {
    void this.refresh()
    const instructions = this.profile.instructions ?? []
    return instructions.length > 0 ? instructions.join('\n\n') : null
  }

  /** The skills the profile adds to its owner's. */
  skills(): Skill[] {
    return this.profile.skills ?? []
  }

  /** The profile's permission section (the policy's `profile` layer). */
  permission(): AgentProfile['permission'] {
    return this.profile.permission
  }

  private async load(): Promise<void> {
    const owner = this.host.owner()
    if (!owner) return
    try {
      this.set((await this.lookup(owner, this.host.name())).profile)
    } catch (error) {
      // UNKNOWN_AGENT: the profile was removed since the session was created; it runs closed.
      if ((error as { code?: string }).code === 'UNKNOWN_AGENT') this.set(CLOSED)
      console.warn('agent profile not resolved', { agent: this.host.name(), error: String(error) })
    }
  }

  private set(profile: AgentProfile): void {
    this.profile = profile
    this.filter = toolFilter(profile.tools)
  }
}
