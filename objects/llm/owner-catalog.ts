/**
 * The catalog a session's model calls go through (and an orchestration's, for its owner): the deployment's catalog,
 * or, when the session's provider has no env key, the same catalog composed
 * with its owner's stored keys (composeCatalog decides which key wins). Keys
 * are read from the owner's ConfigObject per use and kept nowhere else, so a
 * deleted key stops being used at the next turn and no key is ever recorded.
 */
import type { Env } from '../core/env.ts'
import { settled } from '../core/rpc.ts'
import { type Catalog, parseModelRef, type ProviderRow, type ResolvedModel, resolveModel } from './catalog.ts'
import { composeCatalog, type EnvVars } from './compose.ts'
import { CATALOG_SNAPSHOT } from './catalog-snapshot.ts'
import type { LlmEvent, LlmRequest } from './types.ts'
import { streamModelBatches } from './stream.ts'

export class OwnerCatalog {
  constructor(
    private readonly env: Env,
    /** The deployment's catalog (env keys only). */
    readonly base: Catalog,
    /** The rows `base` was composed from (the bundled ones, plus a deployment's: objects/extend/). */
    private readonly rows: ProviderRow[] = CATALOG_SNAPSHOT,
  ) {}

  /**
   * The catalog for `owner` calling `provider`: the base one unless that provider lacks an env key.
   *
   * @example
   * resolveModel(await owned.catalogFor('user#ada', 'anthropic'), 'anthropic/claude-sonnet-4-5')
   */
  async catalogFor(owner: string | null, provider: string): Promise<Catalog> {
    const known = this.base.providers().find((candidate) => candidate.id === provider)
    if (!owner || !known || known.enabled) return this.base
    const keys = await settled(this.env.CONFIGS.getByName(owner)).apiKeys(owner)
    return composeCatalog(this.env as unknown as EnvVars, this.rows, keys)
  }

  /**
   * A `provider/model` reference as `owner`'s model calls will use it: resolved in `catalogFor`'s
   * catalog, so a provider keyed only by the owner's stored key resolves, and one keyed by
   * neither is refused `PROVIDER_NOT_CONFIGURED`. Sessions, orchestrations and their agents all
   * resolve their model here.
   *
   * @example
   * await owned.resolve('user#ada', 'anthropic/claude-sonnet-4-5') // { provider: { id: 'anthropic', … }, model: { id: 'claude-sonnet-4-5', … } }
   */
  async resolve(owner: string, ref: string): Promise<ResolvedModel> {
    return resolveModel(await this.catalogFor(owner, parseModelRef(ref).provider), ref)
  }

  /** The runner's `stream` stage, through `catalogFor` (found when the turn starts). */
  stream(owner: string | null, request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent[], void, undefined> {
    return streamModelBatches(request, { catalog: () => this.catalogFor(owner, request.provider), signal })
  }
}
