/**
 * A session's config overrides: a document of the same schema as its owner's
 * config (validated by the same zod schema), stored append-only in the
 * session's own ledger with the same ETag / If-Match rule. The session's
 * effective config is `mergeConfig(owner, overrides)`; like an owner's change,
 * an override reaches the model only at the next turn boundary, as a
 * `context.changed` message, because it is read through the context sources.
 *
 * Only the owner writes them: they decide which servers the owner's sealed MCP headers and grants
 * are sent to and what every turn is told, so a share holder may read them, never change them.
 */
import { NeuronError } from '../../core/errors.ts'
import { canonicalJson, type JsonObject } from '../../ledger/json.ts'
import type { PermissionLayers } from '../../permission/approvals.ts'
import { PermissionSection, type PermissionRule } from '../../permission/policy.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import { type ConfigVersion, currentVersion, mergeConfig, putVersion } from '../../config/versions.ts'

export class SessionConfig {
  constructor(
    private readonly ledger: Ledger,
    /** The session's topic; overrides live under `<topic>.config`. */
    topic: string,
    /** The session's owner, the one author the overrides take. */
    private readonly owner: () => string,
    private readonly ownerDocument: () => Promise<JsonObject>,
    /** The permission section of the agent profile the session runs (session-profile.ts). */
    private readonly profile: () => PermissionSection | undefined = () => undefined,
  ) {
    this.topic = `${topic}.config`
  }

  private readonly topic: string

  /** The current overrides (version 0: none). */
  current(): ConfigVersion {
    return currentVersion(this.ledger, this.topic)
  }

  /**
   * Stores a new version of the overrides; an author other than the owner is `SESSION_CONFIG_OWNER_ONLY`.
   *
   * @example
   * overrides.put('user#ada', { instructions: ['Answer tersely.'] }, '"v0"')
   */
  put(author: string, input: unknown, ifMatch?: string): ConfigVersion {
    if (author !== this.owner()) {
      throw new NeuronError('SESSION_CONFIG_OWNER_ONLY', "only the session's owner may change its config; a share holder may read it", { status: 403 })
    }
    return putVersion(this.ledger, this.topic, author, input, ifMatch)
  }

  /**
   * The permission policy's layers: the owner's document (the principal), the agent profile the
   * session runs (the profile) and these overrides (the session); the innermost `askTimeoutSeconds` wins.
   */
  async permissionLayers(): Promise<PermissionLayers> {
    const principal = sectionOf(await this.ownerDocument())
    const profile = this.profile() ?? {}
    const session = sectionOf(this.current().document)
    const askTimeoutSeconds = session.askTimeoutSeconds ?? profile.askTimeoutSeconds ?? principal.askTimeoutSeconds
    return { principal: principal.rules, profile: profile.rules, session: session.rules, ...(askTimeoutSeconds === undefined ? {} : { askTimeoutSeconds }) }
  }

  /**
   * Appends rules (an "always" answer's) to the overrides' permission section, as a new version by
   * `author`; rules already there are not added twice. Refused like any write (`INVALID_CONFIG` past the rule limit).
   *
   * @example
   * overrides.addPermissionRules('user#ada', [{ tool: 'bash', match: 'npm test', action: 'allow' }])
   */
  addPermissionRules(author: string, rules: PermissionRule[]): void {
    const current = this.current()
    const document = current.document
    const section = (document.permission ?? {}) as JsonObject
    const existing = (section.rules ?? []) as PermissionRule[]
    const seen = new Set(existing.map((rule) => canonicalJson(rule)))
    const added = rules.filter((rule) => !seen.has(canonicalJson(rule)))
    if (added.length === 0) return
    this.put(author, { ...document, permission: { ...section, rules: [...existing, ...added] } }, current.etag)
  }

  /** What the session's context sources read: the owner's document with these overrides over it. */
  async effective(): Promise<JsonObject> {
    return mergeConfig(await this.ownerDocument(), this.current().document)
  }
}

/** A document's permission section; one that does not read (written before the section existed) is empty. */
function sectionOf(document: JsonObject): PermissionSection {
  const parsed = PermissionSection.safeParse(document.permission ?? {})
  return parsed.success ? parsed.data : {}
}
