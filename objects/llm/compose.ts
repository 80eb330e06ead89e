/**
 * Catalog composition (spec §5, amended: no hooks). The one visible place where
 * enablement and options, which are data, meet the bundled rows. Read it top to
 * bottom:
 *
 * 1. rows: `CATALOG_SNAPSHOT`
 * 2. data from env: API keys (else the principal's stored key, `stored`), base URL overrides, `NEURON_DISABLED_PROVIDERS`,
 *    per-model request options `NEURON_MODEL_OPTIONS`
 * 3. vendor-specific registration code, explicit, in `registerVendor` below
 * 4. the default model: `NEURON_MODEL`, else the first vendor that has a key,
 *    else the offline `local/echo-1`
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import type { JsonObject } from '../ledger/json.ts'
import { parseOrThrow } from '../core/validate.ts'
import { type Catalog, createCatalog, lookup, type ModelRef, parseModelRef, type Provider, type ProviderRow, resolveModel } from './catalog.ts'
import { CATALOG_SNAPSHOT } from './catalog-snapshot.ts'
import { localFetch } from './local/fetch.ts'

/**
 * Strings from `env` / `.dev.vars` / secrets; unset entries may be `undefined`.
 * A Worker's `env` also holds bindings: anything that is not a string reads as unset.
 */
export type EnvVars = Record<string, string | undefined>

/** A principal's opened provider keys by provider id (objects/config/credentials.ts). */
export type StoredKeys = Record<string, string>

const ModelOptionsSchema = z.record(z.string(), z.record(z.string(), z.json()))

/**
 * The catalog for this environment.
 *
 * @example
 * const catalog = composeCatalog({ ANTHROPIC_API_KEY: 'sk-ant-…' })
 * catalog.default().model.id // 'claude-sonnet-4-5'
 * composeCatalog({}).default().model.id // 'echo-1'
 * composeCatalog({}, CATALOG_SNAPSHOT, { openai: 'sk-…' }).get('openai', 'gpt-5')!.provider.enabled // true
 */
export function composeCatalog(vars: EnvVars, rows: ProviderRow[] = CATALOG_SNAPSHOT, stored: StoredKeys = {}): Catalog {
  const env = strings(vars)
  const disabled = new Set(words(env.NEURON_DISABLED_PROVIDERS))
  const options = modelOptions(env.NEURON_MODEL_OPTIONS)
  const providers = rows
    .map((row) => fromEnv(row, env, options, stored))
    .map((provider) => registerVendor(provider, env))
    .map((provider) => (disabled.has(provider.id) ? { ...provider, enabled: false } : provider))
  return createCatalog(providers, defaultModel(providers, env.NEURON_MODEL))
}

/** Keys, base URL and options: plain data lookups, nothing vendor-specific. */
function fromEnv(row: ProviderRow, env: EnvVars, options: Map<string, JsonObject>, stored: StoredKeys): Provider {
  // The deployment's key wins; a principal's stored key serves only a provider the env leaves unkeyed.
  const envKey = row.env.map((name) => env[name]).find((value) => value !== undefined && value !== '')
  const apiKey = envKey ?? (row.env.length > 0 ? stored[row.id] : undefined)
  const baseUrl = (row.baseUrlEnv && env[row.baseUrlEnv]) || row.baseUrl
  const baseUrlSet = row.baseUrlEnv !== undefined && !!env[row.baseUrlEnv]
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    env: row.env,
    enabled: apiKey !== undefined || (row.keyless === true && baseUrlSet),
    apiKey,
    headers: {},
    fetch: undefined,
    models: row.models.map((model) => {
      const extra = options.get(`${row.id}/${model.id}`)
      return extra ? { ...model, options: { ...model.options, ...extra } } : model
    }),
  }
}

/** Vendor-specific behaviour, one explicit case per vendor, in the order written here. */
function registerVendor(provider: Provider, env: EnvVars): Provider {
  switch (provider.id) {
    case 'local':
      // The offline default: always on, served in-process in the OpenAI-compatible wire format.
      return { ...provider, enabled: true, fetch: localFetch }
    case 'anthropic':
      return env.ANTHROPIC_BETA ? { ...provider, headers: { 'anthropic-beta': env.ANTHROPIC_BETA } } : provider
    case 'openrouter':
      // OpenRouter's documented attribution headers.
      return { ...provider, headers: { 'HTTP-Referer': 'https://github.com/neuron', 'X-Title': 'Neuron' } }
    default:
      return provider
  }
}

function defaultModel(providers: Provider[], chosen: string | undefined): ModelRef {
  if (chosen) {
    // Resolved as any reference is; a deployment that names a model it cannot call is misconfigured.
    try {
      resolveModel(lookup(providers), chosen)
    } catch (error) {
      const { code, message, details } = error as NeuronError
      throw new NeuronError('INVALID_CONFIG', `NEURON_MODEL "${chosen}": ${message}`, { status: 500, details: { NEURON_MODEL: chosen, reason: code, ...details } })
    }
    return parseModelRef(chosen)
  }
  const vendor = providers.find((p) => p.enabled && p.id !== 'local' && p.models.length > 0)
  const fallback = vendor ?? providers.find((p) => p.id === 'local')
  return { provider: fallback?.id ?? 'local', model: fallback?.models[0]?.id ?? 'echo-1' }
}

function modelOptions(raw: string | undefined): Map<string, JsonObject> {
  if (!raw) return new Map()
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (cause) {
    throw new NeuronError('INVALID_CONFIG', 'NEURON_MODEL_OPTIONS is not JSON', { status: 500, cause })
  }
  const options = parseOrThrow(ModelOptionsSchema, parsed, 'INVALID_CONFIG', 500)
  return new Map(Object.entries(options as Record<string, JsonObject>))
}

function strings(vars: EnvVars): EnvVars {
  return Object.fromEntries(Object.entries(vars).filter(([, value]) => typeof value === 'string'))
}

function words(raw: string | undefined): string[] {
  return (raw ?? '').split(/[\s,]+/).filter(Boolean)
}
