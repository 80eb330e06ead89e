/**
 * OpenAI-compatible chat completions: `POST {baseUrl}/chat/completions` with a
 * Bearer key. Every vendor that speaks it is just a base-URL row. Answered as
 * `data:`-only SSE of `chat.completion.chunk` objects:
 *
 *   chunk(delta.content | delta.reasoning_content | delta.tool_calls[index])*
 *   → chunk(finish_reason) → chunk(choices: [] or null, usage) → data: [DONE]
 */
import type { JsonObject } from '../../ledger/json.ts'
import { classifyVendorError, ProviderError } from '../errors.ts'
import type { SseEvent } from '../sse.ts'
import type { Dialect, DialectInput, DialectParser, FinishReason, LlmEvent, LlmMessage } from '../types.ts'
import { type HotEvent, type HotShape, hotFrame, hotRead, hotShape, INDEX, MEMBERS, STRING } from './fast-path.ts'
import { Lanes } from './lane.ts'
import { Fragments } from './fragments.ts'
import { count, firstString, postJson, readJson, toolInput, truncated } from './wire.ts'

/** @example dialectFor('openai/completions') === openaiCompatible */
export const openaiCompatible: Dialect = {
  kind: 'openai/completions',
  request: ({ request, model, baseUrl, apiKey, headers }: DialectInput) =>
    postJson(`${baseUrl}/chat/completions`, { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers }, {
      model: model.id,
      messages: [...(request.system ? [{ role: 'system', content: request.system }] : []), ...request.messages.map(toMessage)],
      ...(request.tools?.length
        ? {
            tools: request.tools.map((t) => ({
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.inputSchema },
            })),
          }
        : {}),
      // `max_tokens`, not `max_completion_tokens`: the one every compatible server accepts.
      ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      stream: true,
      stream_options: { include_usage: true },
      ...model.options,
    }),
  parser: () => new CompatibleParser(),
}

function toMessage(message: LlmMessage): JsonObject {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
    case 'assistant': {
      // Reasoning is not sent back: compatible servers either ignore it or reject it.
      const text = message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
      const calls = message.content.flatMap((p) =>
        p.type === 'tool-call'
          ? [
              {
                id: p.id,
                type: 'function',
                function: { name: p.name, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input) },
              },
            ]
          : [],
      )
      return { role: 'assistant', content: text === '' ? null : text, ...(calls.length ? { tool_calls: calls } : {}) }
    }
  }
}

interface WireToolCall {
  index?: number
  id?: string
  function?: { name?: string; arguments?: string }
}
interface WireChunk {
  choices?: Array<{
    delta?: {
      content?: string | null
      reasoning_content?: string | null // DeepSeek and others
      reasoning?: string | null // OpenRouter, vLLM, Ollama
      refusal?: string | null
      tool_calls?: WireToolCall[] | null
    }
    finish_reason?: string | null
  }> | null
  usage?: {
    prompt_tokens?: number
    completion_tokens?: number
    prompt_tokens_details?: { cached_tokens?: number } | null
    prompt_cache_hit_tokens?: number // DeepSeek
    completion_tokens_details?: { reasoning_tokens?: number } | null
  } | null
  error?: { message?: string; type?: string | null; code?: string | number | null }
}

// The bulk of a stream, read without JSON.parse when exactly this shape (see fast-path.ts):
// chunks whose only news is one content or tool-argument delta. Consecutive chunks repeat the same
// id, model and index around the delta, so both shapes remember that frame.
const CHOICE = String.raw`\{${MEMBERS}"choices":\[\{"index":0,"delta":\{`
const NOTHING_ELSE = String.raw`\}(?:,"logprobs":null)?,"finish_reason":null\}\]\}`
export const CONTENT_DELTA = hotShape(String.raw`${CHOICE}"content":${STRING}${NOTHING_ELSE}`, { frame: true })
export const TOOL_DELTA = hotShape(
  String.raw`${CHOICE}"tool_calls":\[\{"index":${INDEX},"function":\{"arguments":${STRING}\}\}\]${NOTHING_ELSE}`,
  { frame: true },
)

type Call = { id: string; name: string; args: Fragments }

class CompatibleParser implements DialectParser {
  #calls: Call[] = []
  #flushed = 0
  #finish: string | undefined = undefined
  #usage: LlmEvent | undefined = undefined
  #done = false
  // The hot shape the last hot event was read through, to read the next ones whole (see `whole`).
  readonly #lanes = new Lanes(TOOL_DELTA, (shape, hot, out) => this.#hotDelta(shape, hot, out))

  push(event: SseEvent, out: LlmEvent[]): void {
    if (this.#done) return
    if (event.data === '[DONE]') return this.#close(out)
    // The same frame as the last tool-argument chunk: no regex at all (and no content regex first).
    const framed = hotFrame(event.data, TOOL_DELTA)
    if (framed && this.#lanes.hot(event, TOOL_DELTA, framed, out)) return
    const text = hotRead(event.data, CONTENT_DELTA)
    if (text && this.#lanes.hot(event, CONTENT_DELTA, text, out)) return
    const args = hotRead(event.data, TOOL_DELTA)
    if (args && this.#lanes.hot(event, TOOL_DELTA, args, out)) return
    const chunk = readJson<WireChunk>(event.data, 'openai-compatible')
    if (chunk.error) throw vendorError(chunk.error)
    const choice = chunk.choices?.[0]
    const delta = choice?.delta
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning
      if (reasoning) out.push({ type: 'reasoning-delta', text: reasoning })
      if (delta.content) out.push({ type: 'text-delta', text: delta.content })
      if (delta.refusal) out.push({ type: 'text-delta', text: delta.refusal })
      if (delta.tool_calls) for (const call of delta.tool_calls) this.#toolDelta(call, out)
    }
    if (choice?.finish_reason) {
      this.#finish = choice.finish_reason
      this.#flushCalls(out)
    }
    if (chunk.usage) this.#usage = usageEvent(chunk.usage)
  }

  /**
   * The body ended. `data: [DONE]` is the documented end, but many servers close
   * right after the chunk with `finish_reason` (and the usage chunk): once a
   * finish_reason arrived the answer is complete, so a clean close then finishes
   * the turn with whatever usage came. A close before any finish_reason is
   * truncation. (A broken connection never gets here: the read fails first.)
   */
  end(out: LlmEvent[]): void {
    if (this.#done) return
    if (this.#finish === undefined) throw truncated('openai-compatible', 'a finish_reason')
    this.#close(out)
  }

  /**
   * The next event whole when it is the last hot event's frame around another string. `push`
   * would read it the same way: a content frame never matches the tool one `push` tries first.
   */
  whole(text: string, at: number, out: LlmEvent[]): number {
    return this.#done ? -1 : this.#lanes.whole(text, at, out)
  }

  /** False (nothing read) for arguments of a call that has not started: the full path starts it. */
  #hotDelta(shape: HotShape, hot: HotEvent, out: LlmEvent[]): boolean {
    if (shape === TOOL_DELTA) return this.#arguments(hot.index, hot.text, out)
    if (hot.text) out.push({ type: 'text-delta', text: hot.text })
    return true
  }

  #toolDelta(wire: WireToolCall, out: LlmEvent[]): void {
    // Calls are keyed by `index`; a server that omits it sends one call per chunk, marked by a new id.
    const index = wire.index ?? (wire.id !== undefined ? this.#calls.length : this.#calls.length - 1)
    let call = this.#calls[index]
    if (!call) {
      call = { id: wire.id ?? `call_${index}`, name: wire.function?.name ?? '', args: new Fragments() }
      this.#calls[index] = call
      out.push({ type: 'tool-input-start', id: call.id, name: call.name })
    } else if (wire.function?.name && !call.name) call.name = wire.function.name
    const args = wire.function?.arguments
    if (args) this.#arguments(index, args, out)
  }

  /** More argument text for the call at `index`; false when no such call started (the full path starts it). */
  #arguments(index: number, args: string, out: LlmEvent[]): boolean {
    const call = this.#calls[index]
    if (!call) return false
    if (args) {
      call.args.push(args)
      out.push({ type: 'tool-input-delta', id: call.id, delta: args })
    }
    return true
  }

  #flushCalls(out: LlmEvent[]): void {
    for (; this.#flushed < this.#calls.length; this.#flushed++) {
      const call = this.#calls[this.#flushed]
      if (!call) continue
      out.push(
        { type: 'tool-input-end', id: call.id },
        { type: 'tool-call', id: call.id, name: call.name, input: toolInput(call.args.text()) },
      )
    }
  }

  #close(out: LlmEvent[]): void {
    this.#done = true
    this.#flushCalls(out)
    if (this.#usage) out.push(this.#usage)
    out.push({ type: 'finish', reason: finishReason(this.#finish, this.#calls.length > 0) })
  }
}

function usageEvent(usage: NonNullable<WireChunk['usage']>): LlmEvent {
  return {
    type: 'usage',
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cachedInputTokens: count(usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens),
    reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens),
  }
}

function finishReason(reason: string | undefined, calledTools: boolean): FinishReason {
  switch (reason) {
    case 'stop':
      // Some servers say "stop" after tool calls; the turn still ends in tool calls.
      return calledTools ? 'tool-calls' : 'stop'
    case 'length':
      return 'length'
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls'
    case 'content_filter':
      return 'content-filter'
    default:
      return 'other'
  }
}

function vendorError(error: NonNullable<WireChunk['error']>): ProviderError {
  const status = typeof error.code === 'number' ? error.code : 0
  const vendorType = firstString(error.code, error.type)
  return new ProviderError(classifyVendorError(vendorType, status), error.message || 'openai-compatible: error chunk', {
    vendorType,
  })
}
