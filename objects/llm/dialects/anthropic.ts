/**
 * Anthropic Messages: `POST {baseUrl}/messages` with `x-api-key` and
 * `anthropic-version`, answered as content-block SSE:
 *
 *   message_start → (content_block_start → content_block_delta* → content_block_stop)*
 *   → message_delta (stop_reason, cumulative usage) → message_stop
 *
 * with `ping` anywhere and `error` (e.g. overloaded_error) possibly mid-stream.
 *
 * With extended thinking and tools, the API requires the previous assistant
 * turn's thinking blocks back, unchanged and in order: `thinking` with its
 * `signature`, and `redacted_thinking` with its opaque `data` (thinking the
 * safety systems encrypted). Both are kept as assistant parts and replayed.
 */
import type { JsonObject } from '../../ledger/json.ts'
import { classifyVendorError, ProviderError } from '../errors.ts'
import type { SseEvent } from '../sse.ts'
import type {
  AssistantPart,
  Dialect,
  DialectInput,
  DialectParser,
  FinishReason,
  LlmEvent,
  LlmMessage,
  Usage,
} from '../types.ts'
import { type HotEvent, type HotShape, hotFrame, hotRead, hotShape, INDEX, STRING } from './fast-path.ts'
import { Lanes } from './lane.ts'
import { Fragments } from './fragments.ts'
import { count, postJson, readJson, toolInput, truncated } from './wire.ts'

export const ANTHROPIC_VERSION = '2023-06-01'

/** @example dialectFor('anthropic/messages') === anthropic */
export const anthropic: Dialect = {
  kind: 'anthropic/messages',
  request: ({ request, model, baseUrl, apiKey, headers }: DialectInput) =>
    postJson(
      `${baseUrl}/messages`,
      { ...(apiKey ? { 'x-api-key': apiKey } : {}), 'anthropic-version': ANTHROPIC_VERSION, ...headers },
      {
        model: model.id,
        max_tokens: request.maxOutputTokens ?? model.limits.output,
        ...(request.system ? { system: request.system } : {}),
        messages: toMessages(request.messages),
        ...(request.tools?.length
          ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })) }
          : {}),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        stream: true,
        ...model.options,
      },
    ),
  parser: () => new AnthropicParser(),
}

type Block = JsonObject
type WireMessage = { role: 'user' | 'assistant'; content: string | Block[] }

/** Tool results travel as user turns; adjacent user turns are merged so roles alternate. */
function toMessages(messages: LlmMessage[]): WireMessage[] {
  const out: WireMessage[] = []
  for (const message of messages) {
    if (message.role === 'assistant') {
      const content = message.content.flatMap(assistantBlock)
      if (content.length > 0) out.push({ role: 'assistant', content })
      continue
    }
    const block: Block =
      message.role === 'user'
        ? { type: 'text', text: message.content }
        : {
            type: 'tool_result',
            tool_use_id: message.toolCallId,
            content: message.content,
            ...(message.isError ? { is_error: true } : {}),
          }
    const last = out.at(-1)
    if (last?.role === 'user') {
      last.content = [...(typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content), block]
    } else out.push({ role: 'user', content: message.role === 'user' ? message.content : [block] })
  }
  return out
}

function assistantBlock(part: AssistantPart): Block[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }]
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: part.input }]
    case 'reasoning':
      // Thinking is replayable only with Anthropic's own signature (base64, never JSON like OpenAI's).
      return part.signature && !part.signature.startsWith('{')
        ? [{ type: 'thinking', thinking: part.text, signature: part.signature }]
        : []
    case 'redacted-reasoning':
      return [{ type: 'redacted_thinking', data: part.data }]
  }
}

/** The wire events, as documented; every field optional because it is read defensively. */
interface WireEvent {
  type?: string
  index?: number
  message?: { usage?: WireUsage }
  content_block?: { type?: string; id?: string; name?: string; text?: string; data?: string }
  delta?: {
    type?: string
    text?: string
    thinking?: string
    signature?: string
    partial_json?: string
    stop_reason?: string | null
  }
  usage?: WireUsage
  error?: { type?: string; message?: string }
}
interface WireUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
  /** Of `output_tokens`, those the model spent thinking (`thinking_tokens`, delimiters included). */
  output_tokens_details?: { thinking_tokens?: number | null } | null
}

// The bulk of a stream, read without JSON.parse when exactly this shape (see fast-path.ts); a
// block's deltas repeat the same frame around the string, so both shapes remember it.
const DELTA = String.raw`\{"type":"content_block_delta","index":${INDEX},"delta":\{"type":`
export const TEXT_DELTA = hotShape(String.raw`${DELTA}"text_delta","text":${STRING}\}\}`, { frame: true })
export const JSON_DELTA = hotShape(String.raw`${DELTA}"input_json_delta","partial_json":${STRING}\}\}`, { frame: true })

type OpenBlock = { kind: 'text' | 'thinking' | 'other' } | { kind: 'tool'; id: string; name: string; json: Fragments }

class AnthropicParser implements DialectParser {
  #blocks: OpenBlock[] = []
  #usage: WireUsage = {}
  #stopReason: string | null | undefined = undefined
  #done = false
  // The hot shape the last hot event was read through, to read the next ones whole (see `whole`).
  readonly #lanes = new Lanes(JSON_DELTA, (shape, hot, out) => this.#hotDelta(shape, hot, out))

  push(event: SseEvent, out: LlmEvent[]): void {
    if (this.#done) return
    // The same frame as the last input-json chunk: no regex at all (and no text regex first).
    const framed = hotFrame(event.data, JSON_DELTA)
    if (framed) return void this.#lanes.hot(event, JSON_DELTA, framed, out)
    const text = hotRead(event.data, TEXT_DELTA)
    if (text) return void this.#lanes.hot(event, TEXT_DELTA, text, out)
    const json = hotRead(event.data, JSON_DELTA)
    if (json) return void this.#lanes.hot(event, JSON_DELTA, json, out)
    const wire = readJson<WireEvent>(event.data, 'anthropic')
    switch (wire.type) {
      case 'content_block_delta':
        return this.#delta(wire, out)
      case 'message_start':
        return this.#addUsage(wire.message?.usage)
      case 'content_block_start':
        return this.#start(wire, out)
      case 'content_block_stop':
        return this.#stop(wire.index ?? 0, out)
      case 'message_delta':
        this.#stopReason = wire.delta?.stop_reason ?? this.#stopReason
        return this.#addUsage(wire.usage)
      case 'message_stop':
        this.#done = true
        out.push(usageEvent(this.#usage), { type: 'finish', reason: finishReason(this.#stopReason) })
        return
      case 'error':
        throw new ProviderError(
          classifyVendorError(wire.error?.type, 0),
          wire.error?.message ?? 'anthropic: error event',
          { vendorType: wire.error?.type },
        )
      // 'ping' and event types added after this was written are ignored, as the docs ask.
    }
  }

  end(): void {
    if (!this.#done) throw truncated('anthropic', 'message_stop')
  }

  /**
   * The next event whole when it is the last hot event's frame around another string. `push`
   * would read it the same way: the two shapes' frames differ in their delta type, so a text
   * frame never matches the input-json one `push` tries first.
   */
  whole(text: string, at: number, out: LlmEvent[]): number {
    return this.#done ? -1 : this.#lanes.whole(text, at, out)
  }

  #hotDelta(shape: HotShape, hot: HotEvent, out: LlmEvent[]): boolean {
    if (shape === JSON_DELTA) this.#jsonDelta(hot.index, hot.text, out)
    else if (hot.text) out.push({ type: 'text-delta', text: hot.text })
    return true
  }

  #start(wire: WireEvent, out: LlmEvent[]): void {
    const block = wire.content_block
    const index = wire.index ?? 0
    if (block?.type === 'tool_use') {
      const id = block.id ?? `toolu_${index}`
      const name = block.name ?? ''
      this.#blocks[index] = { kind: 'tool', id, name, json: new Fragments() }
      out.push({ type: 'tool-input-start', id, name })
    } else if (block?.type === 'text') {
      this.#blocks[index] = { kind: 'text' }
      if (block.text) out.push({ type: 'text-delta', text: block.text })
    } else if (block?.type === 'redacted_thinking') {
      // Arrives whole in its start event; there are no deltas.
      this.#blocks[index] = { kind: 'other' }
      if (block.data) out.push({ type: 'reasoning-redacted', data: block.data })
    } else this.#blocks[index] = { kind: block?.type === 'thinking' ? 'thinking' : 'other' }
  }

  #delta(wire: WireEvent, out: LlmEvent[]): void {
    const delta = wire.delta
    switch (delta?.type) {
      case 'text_delta':
        if (delta.text) out.push({ type: 'text-delta', text: delta.text })
        return
      case 'thinking_delta':
        if (delta.thinking) out.push({ type: 'reasoning-delta', text: delta.thinking })
        return
      case 'signature_delta':
        if (delta.signature) out.push({ type: 'reasoning-signature', signature: delta.signature })
        return
      case 'input_json_delta':
        return this.#jsonDelta(wire.index ?? 0, delta.partial_json ?? '', out)
    }
  }

  #jsonDelta(index: number, partial: string, out: LlmEvent[]): void {
    const block = this.#blocks[index]
    // The first input_json_delta of a tool block is often empty: nothing to say yet.
    if (block?.kind !== 'tool' || partial === '') return
    block.json.push(partial)
    out.push({ type: 'tool-input-delta', id: block.id, delta: partial })
  }

  #stop(index: number, out: LlmEvent[]): void {
    const block = this.#blocks[index]
    if (block?.kind !== 'tool') return
    out.push(
      { type: 'tool-input-end', id: block.id },
      { type: 'tool-call', id: block.id, name: block.name, input: toolInput(block.json.text()) },
    )
  }

  #addUsage(usage: WireUsage | undefined): void {
    // message_delta usage is cumulative: a field it carries replaces message_start's.
    for (const [key, value] of Object.entries(usage ?? {})) {
      if (typeof value === 'number') (this.#usage as Record<string, number>)[key] = value
    }
    const thinking = usage?.output_tokens_details?.thinking_tokens
    if (typeof thinking === 'number') this.#usage.output_tokens_details = { thinking_tokens: thinking }
  }
}

function usageEvent(usage: WireUsage): LlmEvent {
  const cacheRead = count(usage.cache_read_input_tokens)
  const cacheWrite = count(usage.cache_creation_input_tokens)
  return {
    type: 'usage',
    inputTokens: count(usage.input_tokens) + cacheRead + cacheWrite,
    outputTokens: count(usage.output_tokens),
    cachedInputTokens: cacheRead,
    reasoningTokens: count(usage.output_tokens_details?.thinking_tokens),
    cacheWriteTokens: cacheWrite,
  } satisfies { type: 'usage' } & Usage
}

function finishReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool-calls'
    case 'refusal':
      return 'content-filter'
    default:
      return 'other'
  }
}
