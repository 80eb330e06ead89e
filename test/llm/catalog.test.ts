import { describe, expect, it } from 'vitest'
import type { ProviderRow } from '../../objects/llm/catalog.ts'
import { CATALOG_SNAPSHOT } from '../../objects/llm/catalog-snapshot.ts'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { costOf } from '../../objects/llm/cost.ts'
import { dialectFor, SUPPORTED_ENDPOINTS } from '../../objects/llm/dialects/registry.ts'
import { UnsupportedEndpointError } from '../../objects/llm/errors.ts'
import { streamModel } from '../../objects/llm/stream.ts'
import { collect } from './support.ts'

const ids = (models: { provider: { id: string }; model: { id: string } }[]) => models.map((m) => `${m.provider.id}/${m.model.id}`)

describe('catalog snapshot', () => {
  it('every provider has models, unique ids within it, a supported endpoint and sane numbers', () => {
    expect(new Set(CATALOG_SNAPSHOT.map((p) => p.id)).size).toBe(CATALOG_SNAPSHOT.length)
    for (const provider of CATALOG_SNAPSHOT) {
      expect(provider.models.length, provider.id).toBeGreaterThan(0)
      expect(new Set(provider.models.map((m) => m.id)).size, provider.id).toBe(provider.models.length)
      expect(provider.baseUrl, provider.id).toMatch(/^https?:\/\/[^/]+.*[^/]$/)
      for (const model of provider.models) {
        expect(() => dialectFor(model.endpoint ?? provider.endpoint)).not.toThrow()
        expect(model.limits.output, model.id).toBeLessThanOrEqual(model.limits.context)
        for (const price of Object.values(model.cost)) expect(price, model.id).toBeGreaterThanOrEqual(0)
      }
    }
  })
})

describe('composeCatalog', () => {
  it('with no env: only the local model is available, and it is the default', () => {
    const catalog = composeCatalog({})
    expect(ids(catalog.available())).toEqual(['local/echo-1', 'local/echo-small'])
    expect(ids([catalog.default()])).toEqual(['local/echo-1'])
    expect(catalog.get('anthropic', 'claude-sonnet-4-5')).toMatchObject({ provider: { enabled: false, apiKey: undefined } })
    expect(catalog.get('anthropic', 'nope')).toBeUndefined()
    expect(catalog.get('nope', 'echo-1')).toBeUndefined()
  })

  it('a vendor key enables that vendor and makes its first model the default', () => {
    const catalog = composeCatalog({ OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: '' })
    expect(ids(catalog.available())).toEqual(['local/echo-1', 'local/echo-small', 'openai/gpt-5', 'openai/gpt-5-mini', 'openai/gpt-4.1'])
    expect(catalog.default()).toMatchObject({ provider: { id: 'openai', apiKey: 'sk-o' }, model: { id: 'gpt-5' }, endpoint: 'openai/responses' })
  })

  it('NEURON_MODEL picks the default; an unknown or unconfigured one is INVALID_CONFIG', () => {
    const env = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }
    expect(ids([composeCatalog({ ...env, NEURON_MODEL: 'openai/gpt-4.1' }).default()])).toEqual(['openai/gpt-4.1'])
    expect(ids([composeCatalog({ NEURON_MODEL: 'local/echo-1', ...env }).default()])).toEqual(['local/echo-1'])
    expect(() => composeCatalog({ NEURON_MODEL: 'openai/gpt-9' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }))
    expect(() => composeCatalog({ NEURON_MODEL: 'gpt-5' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }))
    expect(() => composeCatalog({ NEURON_MODEL: 'openai/gpt-5' })).toThrow(/not configured/)
  })

  it('NEURON_DISABLED_PROVIDERS turns a keyed vendor off', () => {
    const catalog = composeCatalog({ ANTHROPIC_API_KEY: 'a', NEURON_DISABLED_PROVIDERS: 'anthropic, groq' })
    expect(ids(catalog.available())).toEqual(['local/echo-1', 'local/echo-small'])
    expect(ids([catalog.default()])).toEqual(['local/echo-1'])
  })

  it('base URLs come from env without a trailing slash; a keyless server is enabled by its URL', () => {
    const catalog = composeCatalog({ ANTHROPIC_BASE_URL: 'https://gateway.example/anthropic/v1/', OLLAMA_BASE_URL: 'http://10.0.0.2:11434/v1' })
    expect(catalog.get('anthropic', 'claude-haiku-4-5')?.provider.baseUrl).toBe('https://gateway.example/anthropic/v1')
    expect(catalog.get('ollama', 'qwen3:8b')?.provider).toMatchObject({ enabled: true, apiKey: undefined, baseUrl: 'http://10.0.0.2:11434/v1' })
    expect(composeCatalog({}).get('ollama', 'qwen3:8b')?.provider.enabled).toBe(false)
  })

  it('vendor registrations: local gets its in-process fetch, OpenRouter its attribution headers', () => {
    const catalog = composeCatalog({ OPENROUTER_API_KEY: 'or', ANTHROPIC_API_KEY: 'a', ANTHROPIC_BETA: 'context-1m-2025-08-07' })
    expect(catalog.get('local', 'echo-1')?.provider.fetch).toBeTypeOf('function')
    expect(catalog.get('openai', 'gpt-5')?.provider.fetch).toBeUndefined()
    expect(catalog.get('openrouter', 'anthropic/claude-sonnet-4.5')?.provider.headers).toMatchObject({ 'X-Title': 'Neuron' })
    expect(catalog.get('anthropic', 'claude-sonnet-4-5')?.provider.headers).toEqual({ 'anthropic-beta': 'context-1m-2025-08-07' })
  })

  it('NEURON_MODEL_OPTIONS merges request options into one model row, and they reach the wire', async () => {
    const options = {
      'anthropic/claude-sonnet-4-5': { thinking: { type: 'enabled', budget_tokens: 2048 } },
      'deepseek/deepseek-chat': { seed: 7 },
    }
    const catalog = composeCatalog({ DEEPSEEK_API_KEY: 'd', NEURON_MODEL_OPTIONS: JSON.stringify(options) })
    expect(catalog.get('anthropic', 'claude-sonnet-4-5')?.model.options).toEqual(options['anthropic/claude-sonnet-4-5'])
    expect(catalog.get('anthropic', 'claude-haiku-4-5')?.model.options).toBeUndefined()
    let sent: unknown
    const recording: typeof fetch = async (input) => {
      sent = await (input as Request).json()
      return new Response('data: [DONE]\n\n')
    }
    await collect(streamModel({ provider: 'deepseek', model: 'deepseek-chat', messages: [] }, { catalog, fetch: recording }))
    expect(sent).toMatchObject({ model: 'deepseek-chat', seed: 7, stream: true })
  })

  it('bad NEURON_MODEL_OPTIONS is INVALID_CONFIG', () => {
    expect(() => composeCatalog({ NEURON_MODEL_OPTIONS: '{nope' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }))
    expect(() => composeCatalog({ NEURON_MODEL_OPTIONS: '{"a/b": 3}' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }))
  })
})

describe('streamModel: failures before any request', () => {
  it('unknown model → UNKNOWN_MODEL; unconfigured provider → PROVIDER_NOT_CONFIGURED naming the env key', async () => {
    const catalog = composeCatalog({})
    const unknown = await collect(streamModel({ provider: 'local', model: 'echo-9', messages: [] }, { catalog }))
    expect(unknown.error).toMatchObject({ name: 'UnknownModelError', code: 'UNKNOWN_MODEL', status: 400 })
    const unconfigured = await collect(streamModel({ provider: 'anthropic', model: 'claude-sonnet-4-5', messages: [] }, { catalog }))
    expect(unconfigured.error).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED', details: { env: ['ANTHROPIC_API_KEY'] } })
  })

  it('an endpoint kind without a dialect is UNSUPPORTED_ENDPOINT, never a downgrade', async () => {
    const rows: ProviderRow[] = [
      ...CATALOG_SNAPSHOT,
      {
        id: 'vertex',
        name: 'Vertex via AI SDK',
        endpoint: 'aisdk:google-vertex',
        baseUrl: 'https://vertex.example',
        env: ['VERTEX_KEY'],
        models: [{ ...CATALOG_SNAPSHOT[0]!.models[0]!, id: 'gemini' }],
      },
    ]
    const catalog = composeCatalog({ VERTEX_KEY: 'v', NEURON_MODEL: 'local/echo-1' }, rows)
    let fetched = false
    const { error } = await collect(
      streamModel({ provider: 'vertex', model: 'gemini', messages: [] }, { catalog, fetch: async () => ((fetched = true), new Response()) }),
    )
    expect(error).toBeInstanceOf(UnsupportedEndpointError)
    expect(error).toMatchObject({ code: 'UNSUPPORTED_ENDPOINT', status: 501, details: { endpoint: 'aisdk:google-vertex', supported: SUPPORTED_ENDPOINTS } })
    expect(fetched).toBe(false)
  })
})

describe('dialect registry', () => {
  it('maps the three endpoint kinds and nothing else', () => {
    expect(SUPPORTED_ENDPOINTS).toEqual(['anthropic/messages', 'openai/responses', 'openai/completions'])
    for (const kind of SUPPORTED_ENDPOINTS) expect(dialectFor(kind).kind).toBe(kind)
    for (const kind of ['aisdk:openai', 'openai/realtime', 'unknown', '']) {
      expect(() => dialectFor(kind)).toThrow(UnsupportedEndpointError)
    }
  })
})

describe('costOf', () => {
  const sonnet = composeCatalog({}).get('anthropic', 'claude-sonnet-4-5')!.model
  const gpt5 = composeCatalog({}).get('openai', 'gpt-5')!.model
  const groq = composeCatalog({}).get('groq', 'llama-3.3-70b-versatile')!.model

  it('bills fresh input, cache reads, cache writes and output at their own prices', () => {
    const cost = costOf(sonnet, {
      inputTokens: 1_000_000 + 2_000_000 + 100_000,
      cachedInputTokens: 2_000_000,
      cacheWriteTokens: 100_000,
      outputTokens: 10_000,
      reasoningTokens: 4_000,
    })
    expect(cost.input).toBeCloseTo(3, 10)
    expect(cost.cacheRead).toBeCloseTo(0.6, 10)
    expect(cost.cacheWrite).toBeCloseTo(0.375, 10)
    expect(cost.output).toBeCloseTo(0.15, 10)
    expect(cost.total).toBeCloseTo(4.125, 10)
  })

  it('reasoning tokens are inside output tokens, not billed twice', () => {
    const cost = costOf(gpt5, { inputTokens: 0, cachedInputTokens: 0, outputTokens: 1_000_000, reasoningTokens: 900_000 })
    expect(cost.total).toBeCloseTo(10, 10)
  })

  it('a model without a cache price bills cached input at the input price', () => {
    const cost = costOf(groq, { inputTokens: 1_000_000, cachedInputTokens: 500_000, outputTokens: 0, reasoningTokens: 0 })
    expect(cost.total).toBeCloseTo(0.59, 10)
  })

  it('the local model is free', () => {
    const local = composeCatalog({}).default().model
    expect(costOf(local, { inputTokens: 1e6, cachedInputTokens: 0, outputTokens: 1e6, reasoningTokens: 0 }).total).toBe(0)
  })
})
