/**
 * The bundled catalog: vendor rows as data, prices in USD per 1M tokens.
 * Snapshot of the vendors' public model pages (2025-11); correct a row here
 * when a vendor changes a price or limit. Adding a vendor that speaks
 * `/v1/chat/completions` is one row with its base URL (see docs/providers.md).
 */
import type { ModelRow, ProviderRow } from './catalog.ts'

const text = { input: ['text'], output: ['text'] } satisfies ModelRow['modalities']
const vision = { input: ['text', 'image'], output: ['text'] } satisfies ModelRow['modalities']
const documents = { input: ['text', 'image', 'pdf'], output: ['text'] } satisfies ModelRow['modalities']

export const CATALOG_SNAPSHOT: ProviderRow[] = [
  {
    id: 'local',
    name: 'Local (offline, deterministic)',
    endpoint: 'openai/completions',
    // Never dialled: compose.ts gives this provider an in-process fetch.
    baseUrl: 'http://local.neuron/v1',
    env: [],
    models: [
      {
        id: 'echo-1',
        name: 'Echo 1 — scripted local model (see docs/providers.md)',
        limits: { context: 1_000_000, output: 1_000_000 },
        modalities: text,
        toolCall: true,
        reasoning: true,
        cost: { input: 0, output: 0 },
      },
      {
        // The same scripted model with a 4k window, so budgets, compaction and overflow run offline.
        id: 'echo-small',
        name: 'Echo Small — scripted local model with a 4k context window',
        limits: { context: 4096, output: 1024 },
        modalities: text,
        toolCall: true,
        reasoning: true,
        cost: { input: 0, output: 0 },
      },
    ],
  },
  {
    id: 'anthropic',
    name: 'Anthropic',
    endpoint: 'anthropic/messages',
    baseUrl: 'https://api.anthropic.com/v1',
    env: ['ANTHROPIC_API_KEY'],
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    models: [
      {
        id: 'claude-sonnet-4-5',
        name: 'Claude Sonnet 4.5',
        limits: { context: 200_000, output: 64_000 },
        modalities: documents,
        toolCall: true,
        reasoning: true,
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
      {
        id: 'claude-haiku-4-5',
        name: 'Claude Haiku 4.5',
        limits: { context: 200_000, output: 64_000 },
        modalities: documents,
        toolCall: true,
        reasoning: true,
        cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      },
      {
        id: 'claude-opus-4-1',
        name: 'Claude Opus 4.1',
        limits: { context: 200_000, output: 32_000 },
        modalities: documents,
        toolCall: true,
        reasoning: true,
        cost: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
      },
    ],
  },
  {
    id: 'openai',
    name: 'OpenAI',
    endpoint: 'openai/responses',
    baseUrl: 'https://api.openai.com/v1',
    env: ['OPENAI_API_KEY'],
    baseUrlEnv: 'OPENAI_BASE_URL',
    models: [
      {
        id: 'gpt-5',
        name: 'GPT-5',
        limits: { context: 400_000, output: 128_000 },
        modalities: vision,
        toolCall: true,
        reasoning: true,
        cost: { input: 1.25, output: 10, cacheRead: 0.125 },
      },
      {
        id: 'gpt-5-mini',
        name: 'GPT-5 mini',
        limits: { context: 400_000, output: 128_000 },
        modalities: vision,
        toolCall: true,
        reasoning: true,
        cost: { input: 0.25, output: 2, cacheRead: 0.025 },
      },
      {
        id: 'gpt-4.1',
        name: 'GPT-4.1',
        limits: { context: 1_047_576, output: 32_768 },
        modalities: vision,
        toolCall: true,
        reasoning: false,
        cost: { input: 2, output: 8, cacheRead: 0.5 },
      },
    ],
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    endpoint: 'openai/completions',
    baseUrl: 'https://api.deepseek.com/v1',
    env: ['DEEPSEEK_API_KEY'],
    baseUrlEnv: 'DEEPSEEK_BASE_URL',
    models: [
      {
        id: 'deepseek-chat',
        name: 'DeepSeek V3.2 (chat)',
        limits: { context: 128_000, output: 8_192 },
        modalities: text,
        toolCall: true,
        reasoning: false,
        cost: { input: 0.28, output: 0.42, cacheRead: 0.028 },
      },
      {
        id: 'deepseek-reasoner',
        name: 'DeepSeek V3.2 (reasoner)',
        limits: { context: 128_000, output: 65_536 },
        modalities: text,
        toolCall: true,
        reasoning: true,
        cost: { input: 0.28, output: 0.42, cacheRead: 0.028 },
      },
    ],
  },
  {
    id: 'groq',
    name: 'Groq',
    endpoint: 'openai/completions',
    baseUrl: 'https://api.groq.com/openai/v1',
    env: ['GROQ_API_KEY'],
    models: [
      {
        id: 'llama-3.3-70b-versatile',
        name: 'Llama 3.3 70B Versatile',
        limits: { context: 131_072, output: 32_768 },
        modalities: text,
        toolCall: true,
        reasoning: false,
        cost: { input: 0.59, output: 0.79 },
      },
    ],
  },
  {
    id: 'mistral',
    name: 'Mistral',
    endpoint: 'openai/completions',
    baseUrl: 'https://api.mistral.ai/v1',
    env: ['MISTRAL_API_KEY'],
    models: [
      {
        id: 'mistral-medium-latest',
        name: 'Mistral Medium',
        limits: { context: 128_000, output: 32_768 },
        modalities: vision,
        toolCall: true,
        reasoning: false,
        cost: { input: 0.4, output: 2 },
      },
    ],
  },
  {
    id: 'xai',
    name: 'xAI',
    endpoint: 'openai/completions',
    baseUrl: 'https://api.x.ai/v1',
    env: ['XAI_API_KEY'],
    models: [
      {
        id: 'grok-4',
        name: 'Grok 4',
        limits: { context: 256_000, output: 64_000 },
        modalities: vision,
        toolCall: true,
        reasoning: true,
        cost: { input: 3, output: 15, cacheRead: 0.75 },
      },
    ],
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    endpoint: 'openai/completions',
    baseUrl: 'https://openrouter.ai/api/v1',
    env: ['OPENROUTER_API_KEY'],
    models: [
      {
        id: 'anthropic/claude-sonnet-4.5',
        name: 'Claude Sonnet 4.5 via OpenRouter',
        limits: { context: 1_000_000, output: 64_000 },
        modalities: documents,
        toolCall: true,
        reasoning: true,
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
    ],
  },
  {
    id: 'ollama',
    name: 'Ollama (self-hosted)',
    endpoint: 'openai/completions',
    baseUrl: 'http://127.0.0.1:11434/v1',
    env: ['OLLAMA_API_KEY'],
    baseUrlEnv: 'OLLAMA_BASE_URL',
    keyless: true,
    models: [
      {
        id: 'qwen3:8b',
        name: 'Qwen3 8B (Ollama)',
        limits: { context: 40_960, output: 8_192 },
        modalities: text,
        toolCall: true,
        reasoning: true,
        cost: { input: 0, output: 0 },
      },
    ],
  },
]
