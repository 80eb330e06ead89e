/**
 * The model catalog (spec §5): a dumb container. Providers are rows, models
 * nest under their provider (ids unique only within it). It answers get / all /
 * available / default and holds no behaviour; `compose.ts` fills it. A
 * `provider/model` reference is resolved in one place, `resolveModel`, with one
 * pair of typed errors, wherever it comes from (a client, a plan, NEURON_MODEL, a turn).
 */
import type { JsonObject } from '../ledger/json.ts'
import { ProviderNotConfiguredError, UnknownModelError } from './errors.ts'

export type Modality = 'text' | 'image' | 'audio' | 'video' | 'pdf'

/** US dollars per 1M tokens. */
export interface ModelCost {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
}

export interface ModelRow {
  id: string
  name: string
  /** Endpoint kind when it differs from the provider's. */
  endpoint?: string
  limits: { context: number; output: number }
  modalities: { input: Modality[]; output: Modality[] }
  toolCall: boolean
  reasoning: boolean
  cost: ModelCost
  /** Extra request-body fields for this model, merged last (e.g. Anthropic `thinking`). */
  options?: JsonObject
}

/** A bundled provider row: data only. */
export interface ProviderRow {
  id: string
  name: string
  /** Endpoint kind, e.g. `anthropic/messages`, `openai/responses`, `openai/completions`. */
  endpoint: string
  baseUrl: string
  /** Variables that may hold the API key; the first one set wins. */
  env: string[]
  /** Variable that overrides `baseUrl`. */
  baseUrlEnv?: string
  /** Usable without a key once its base URL is set (self-hosted servers). */
  keyless?: boolean
  /** The first model is the provider's default. */
  models: ModelRow[]
}

/** A provider after composition: enablement, key, headers and transport resolved. */
export interface Provider {
  id: string
  name: string
  endpoint: string
  baseUrl: string
  env: string[]
  enabled: boolean
  apiKey: string | undefined
  headers: Record<string, string>
  /** An in-process transport (the local model); wins over the caller's fetch. */
  fetch: typeof fetch | undefined
  models: ModelRow[]
}

/** A model with its provider and the endpoint kind that applies to it. */
export interface ResolvedModel {
  provider: Provider
  model: ModelRow
  endpoint: string
}

export interface Catalog {
  /** The model, enabled or not; `undefined` when the catalog has no such row. */
  get(provider: string, model: string): ResolvedModel | undefined
  all(): ResolvedModel[]
  /** Models of enabled providers only. */
  available(): ResolvedModel[]
  default(): ResolvedModel
  providers(): Provider[]
}

/**
 * A catalog over composed providers.
 *
 * @example
 * const catalog = createCatalog(providers, { provider: 'local', model: 'echo-1' })
 * catalog.get('local', 'echo-1')?.model.limits.context
 */
export function createCatalog(providers: Provider[], defaultRef: ModelRef): Catalog {
  const { get, all } = lookup(providers)
  const fallback = get(defaultRef.provider, defaultRef.model)
  if (!fallback) throw new UnknownModelError(defaultRef.provider, defaultRef.model)
  return {
    get,
    all,
    available: () => all().filter((m) => m.provider.enabled),
    default: () => fallback,
    providers: () => providers,
  }
}

/** A model named by its provider's id and its own (which may itself hold a `/`). */
export interface ModelRef {
  provider: string
  model: string
}

/**
 * Splits `provider/model` at its first `/`: a model id may hold more (`openrouter/anthropic/claude-sonnet-4.5`).
 *
 * @example
 * parseModelRef('openrouter/anthropic/claude-sonnet-4.5') // { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' }
 */
export function parseModelRef(ref: string): ModelRef {
  const slash = ref.indexOf('/')
  return slash < 0 ? { provider: ref, model: '' } : { provider: ref.slice(0, slash), model: ref.slice(slash + 1) }
}

/**
 * The one model resolution: a `provider/model` reference (or its parts) in `catalog`, or the 400
 * that says why not: `UNKNOWN_MODEL` when the catalog has no such row, `PROVIDER_NOT_CONFIGURED`
 * (naming the env keys) when its provider has no credentials here. Session and orchestration
 * creation, an agent's assignment, each provider turn and the default model all resolve here.
 *
 * @example
 * resolveModel(catalog, 'local/echo-1').model.id // 'echo-1'
 */
export function resolveModel(catalog: Pick<Catalog, 'get'>, ref: string | ModelRef): ResolvedModel {
  const { provider, model } = typeof ref === 'string' ? parseModelRef(ref) : ref
  const resolved = catalog.get(provider, model)
  if (!resolved) throw new UnknownModelError(provider, model)
  if (!resolved.provider.enabled) throw new ProviderNotConfiguredError(resolved.provider.id, resolved.provider.env)
  return resolved
}

/**
 * Every model of `providers`, and the look-up of one (`undefined` when there is no such row).
 *
 * @example
 * lookup(providers).get('local', 'echo-1')?.endpoint
 */
export function lookup(providers: Provider[]): Pick<Catalog, 'get' | 'all'> {
  const byId = new Map(providers.map((p) => [p.id, p]))
  const resolved = (provider: Provider, model: ModelRow): ResolvedModel => ({ provider, model, endpoint: model.endpoint ?? provider.endpoint })
  const all = providers.flatMap((p) => p.models.map((m) => resolved(p, m)))
  const get = (providerId: string, modelId: string) => {
    const provider = byId.get(providerId)
    const model = provider?.models.find((m) => m.id === modelId)
    return provider && model ? resolved(provider, model) : undefined
  }
  return { get, all: () => all }
}
