/**
 * Request shapes: what each dialect puts on the wire for the same conversation
 * (system prompt, tools from zod schemas, prior assistant tool calls, tool results).
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ModelRow } from '../../objects/llm/catalog.ts'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { toolSpec } from '../../objects/llm/tool-spec.ts'
import type { Dialect, LlmRequest } from '../../objects/llm/types.ts'

const weather = toolSpec(
  'get_weather',
  'Current weather for a city',
  z.object({ location: z.string().describe('City name'), unit: z.enum(['c', 'f']).optional() }),
)
const weatherSchema = {
  type: 'object',
  properties: {
    location: { type: 'string', description: 'City name' },
    unit: { type: 'string', enum: ['c', 'f'] },
  },
  required: ['location'],
}

const conversation: LlmRequest = {
  provider: 'p',
  model: 'm',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: 'Weather in Paris and Bogotá?' },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Two cities, two calls.', signature: 'EqQBsig==' },
        { type: 'redacted-reasoning', data: 'EmwKredacted==' },
        { type: 'text', text: 'Checking both.' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool-call', id: 'call_2', name: 'get_weather', input: { location: 'Bogotá' } },
      ],
    },
    { role: 'tool', toolCallId: 'call_1', name: 'get_weather', content: '18°C, clear' },
    { role: 'tool', toolCallId: 'call_2', name: 'get_weather', content: 'city not found', isError: true },
    { role: 'user', content: 'And tomorrow?' },
  ],
  tools: [weather],
  maxOutputTokens: 1024,
  temperature: 0.2,
}

const row = (id: string, extra: Partial<ModelRow> = {}): ModelRow => ({
  id,
  name: id,
  limits: { context: 200_000, output: 64_000 },
  modalities: { input: ['text'], output: ['text'] },
  toolCall: true,
  reasoning: false,
  cost: { input: 1, output: 1 },
  ...extra,
})

async function wire(dialect: Dialect, request: LlmRequest, model: ModelRow, baseUrl: string, apiKey = 'sk-test') {
  const http = dialect.request({ request, model, baseUrl, apiKey, headers: {} })
  return { url: http.url, method: http.method, headers: Object.fromEntries(http.headers), body: (await http.json()) as Record<string, unknown> }
}

describe('anthropic request', () => {
  it('POST /v1/messages with x-api-key and anthropic-version, content blocks for the whole conversation', async () => {
    const sent = await wire(anthropic, conversation, row('claude-sonnet-4-5'), 'https://api.anthropic.com/v1')
    expect(sent.url).toBe('https://api.anthropic.com/v1/messages')
    expect(sent.method).toBe('POST')
    expect(sent.headers).toEqual({
      'x-api-key': 'sk-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    })
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'Weather in Paris and Bogotá?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two cities, two calls.', signature: 'EqQBsig==' },
            { type: 'redacted_thinking', data: 'EmwKredacted==' },
            { type: 'text', text: 'Checking both.' },
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } },
            { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { location: 'Bogotá' } },
          ],
        },
        {
          // Tool results are user content; the next user text joins the same turn so roles alternate.
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18°C, clear' },
            { type: 'tool_result', tool_use_id: 'call_2', content: 'city not found', is_error: true },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Current weather for a city', input_schema: weatherSchema }],
      temperature: 0.2,
      stream: true,
    })
  })

  it('defaults max_tokens to the model limit, omits empty optionals, drops unsigned or foreign reasoning', async () => {
    const request: LlmRequest = {
      provider: 'p',
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'from another vendor' },
            { type: 'reasoning', text: 'openai', signature: '{"id":"rs_1","encrypted_content":"x"}' },
            { type: 'text', text: 'hello' },
          ],
        },
        { role: 'user', content: 'again' },
      ],
    }
    const sent = await wire(anthropic, request, row('claude-haiku-4-5'), 'https://api.anthropic.com/v1')
    expect(sent.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 64_000,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
        { role: 'user', content: 'again' },
      ],
      stream: true,
    })
  })

  it('merges the model row options last (e.g. extended thinking)', async () => {
    const options = { thinking: { type: 'enabled', budget_tokens: 4096 } }
    const sent = await wire(anthropic, conversation, row('claude-sonnet-4-5', { options }), 'https://x/v1')
    expect(sent.body.thinking).toEqual(options.thinking)
  })
})

describe('openai (Responses) request', () => {
  it('POST /v1/responses with Bearer, instructions, function tools, function_call + output items', async () => {
    const sent = await wire(openai, conversation, row('gpt-5', { reasoning: true }), 'https://api.openai.com/v1')
    expect(sent.url).toBe('https://api.openai.com/v1/responses')
    expect(sent.headers).toEqual({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    })
    expect(sent.body).toEqual({
      model: 'gpt-5',
      instructions: 'You are terse.',
      input: [
        { role: 'user', content: 'Weather in Paris and Bogotá?' },
        // The Anthropic-signed reasoning part cannot be replayed to OpenAI and is left out.
        { role: 'assistant', content: 'Checking both.' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"location":"Bogotá"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18°C, clear' },
        { type: 'function_call_output', call_id: 'call_2', output: 'city not found' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: weatherSchema,
          strict: false,
        },
      ],
      max_output_tokens: 1024,
      temperature: 0.2,
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    })
  })

  it('replays its own encrypted reasoning statelessly; no `include` for non-reasoning models', async () => {
    const signature = JSON.stringify({ id: 'rs_1', encrypted_content: 'gAAAA==' })
    const request: LlmRequest = {
      provider: 'p',
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'thought', signature }, { type: 'text', text: 'a' }] },
        { role: 'user', content: 'q2' },
      ],
    }
    const sent = await wire(openai, request, row('gpt-4.1'), 'https://api.openai.com/v1')
    expect(sent.body).toEqual({
      model: 'gpt-4.1',
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_1', encrypted_content: 'gAAAA==', summary: [{ type: 'summary_text', text: 'thought' }] },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'q2' },
      ],
      stream: true,
      store: false,
    })
  })
})

describe('openai-compatible (chat completions) request', () => {
  it('POST /chat/completions with Bearer, system message, tool_calls and tool messages, usage requested', async () => {
    const sent = await wire(openaiCompatible, conversation, row('deepseek-chat'), 'https://api.deepseek.com/v1')
    expect(sent.url).toBe('https://api.deepseek.com/v1/chat/completions')
    expect(sent.headers).toEqual({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    })
    expect(sent.body).toEqual({
      model: 'deepseek-chat',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris and Bogotá?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Bogotá"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C, clear' },
        { role: 'tool', tool_call_id: 'call_2', content: 'city not found' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherSchema },
        },
      ],
      max_tokens: 1024,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    })
  })

  it('an assistant turn of only tool calls has null content; no key means no authorization header', async () => {
    const request: LlmRequest = {
      provider: 'p',
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', input: {} }] },
        { role: 'tool', toolCallId: 'c', name: 'f', content: 'ok' },
      ],
    }
    const http = openaiCompatible.request({ request, model: row('qwen3:8b'), baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined, headers: {} })
    expect(http.headers.has('authorization')).toBe(false)
    const body = (await http.json()) as { messages: unknown[] }
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    })
  })

  it('provider headers from composition are sent and win', () => {
    const http = openaiCompatible.request({
      request: conversation,
      model: row('m'),
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKey: 'k',
      headers: { 'X-Title': 'Neuron' },
    })
    expect(http.headers.get('x-title')).toBe('Neuron')
  })
})
