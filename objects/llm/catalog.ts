/**
 * The model catalog (spec §5): a dumb container. Providers are rows, models
 * nest under their provider (ids unique only within it). It answers get / all /
 * available / default and holds no behaviour; `compose.ts` fills it.
 */
import type { JsonObject } from '../ledger/json.ts'
import { NeuronError } from '../core/errors.ts'
import { UnknownModelError } from './errors.ts'

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
export function createCatalog(providers: Provider[], defaultRef: { provider: string; model: string }): Catalog {
  const byId = new Map(providers.map((p) => [p.id, p]))
  const resolve = (provider: Provider, model: ModelRow): ResolvedModel => ({
    provider,
    model,
    endpoint: model.endpoint ?? provider.endpoint,
  })
  const all = providers.flatMap((p) => p.models.map((m) => resolve(p, m)))
  const get = (providerId: string, modelId: string) => {
    const provider = byId.get(providerId)
    const model = provider?.models.find((m) => m.id === modelId)
    return provider && model ? resolve(provider, model) : undefined
  }
  const fallback = get(defaultRef.provider, defaultRef.model)
  if (!fallback) throw new UnknownModelError(defaultRef.provider, defaultRef.model)
  return {
    get,
    all: () => all,
    available: () => all.filter((m) => m.provider.enabled),
    default: () => fallback,
    providers: () => providers,
  }
}

/**
 * Resolves a `provider/model` reference a client gave, or throws the 400 that says why not:
 * `UNKNOWN_MODEL` when the catalog has no such row, `PROVIDER_NOT_CONFIGURED` when its
 * provider has no credentials here.
 *
 * @example
 * resolveModelRef(catalog, 'local/echo-1').model.id // 'echo-1'
 */
export function resolveModelRef(catalog: Catalog, ref: string): ResolvedModel {
  const [provider, ...rest] = ref.split('/')
  const resolved = catalog.get(provider!, rest.join('/'))
  if (!resolved) throw new NeuronError('UNKNOWN_MODEL', `no model ${ref} in the catalog`, { status: 400, details: { model: ref } })
  if (!resolved.provider.enabled) {
    throw new NeuronError('PROVIDER_NOT_CONFIGURED', `provider ${resolved.provider.id} has no credentials here`, { status: 400, details: { model: ref } })
  }
  return resolved
}
