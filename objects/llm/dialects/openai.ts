/**
 * OpenAI Responses: `POST {baseUrl}/responses` with a Bearer key, answered as
 * `response.*` SSE events:
 *
 *   response.created → response.in_progress
 *   → (output_item.added → output_text.delta* | function_call_arguments.delta*
 *      | reasoning_summary_text.delta* → output_item.done)*
 *   → response.completed | response.incomplete | response.failed
 *
 * Requests are stateless (`store: false`); reasoning models return their
 * encrypted reasoning, which travels back as the reasoning part's signature.
 */
import type { JsonObject } from '../../ledger/json.ts'
import { classifyVendorError, ProviderError } from '../errors.ts'
import type { SseEvent } from '../sse.ts'
import type { AssistantPart, Dialect, DialectInput, DialectParser, FinishReason, LlmEvent, LlmMessage } from '../types.ts'
import { type HotEvent, type HotShape, hotFrame, hotRead, hotShape, ID, MEMBERS, members, STRING } from './fast-path.ts'
import { Lanes } from './lane.ts'
import { count, firstString, postJson, readJson, toolInput, truncated } from './wire.ts'

/** @example dialectFor('openai/responses') === openai */
export const openai: Dialect = {
  kind: 'openai/responses',
  request: ({ request, model, baseUrl, apiKey, headers }: DialectInput) =>
    postJson(`${baseUrl}/responses`, { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers }, {
      model: model.id,
      ...(request.system ? { instructions: request.system } : {}),
      input: request.messages.flatMap(toInput),
      ...(request.tools?.length
        ? {
            tools: request.tools.map((t) => ({
              type: 'function',
              name: t.name,
              description: t.description,
              parameters: t.inputSchema,
              strict: false,
            })),
          }
        : {}),
      ...(request.maxOutputTokens === undefined ? {} : { max_output_tokens: request.maxOutputTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      stream: true,
      store: false,
      ...(model.reasoning ? { include: ['reasoning.encrypted_content'] } : {}),
      ...model.options,
    }),
  parser: () => new OpenAiParser(),
}

function toInput(message: LlmMessage): JsonObject[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.content }]
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }]
    case 'assistant':
      return message.content.flatMap(assistantItem)
  }
}

function assistantItem(part: AssistantPart): JsonObject[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ role: 'assistant', content: part.text }]
    case 'tool-call':
      return [
        {
          type: 'function_call',
          call_id: part.id,
          name: part.name,
          arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input),
        },
      ]
    case 'reasoning': {
      // Only our own packed signature (see `signatureOf`) can be replayed statelessly.
      const packed = unpack(part.signature)
      if (!packed) return []
      const summary = part.text === '' ? [] : [{ type: 'summary_text', text: part.text }]
      return [{ type: 'reasoning', id: packed.id, encrypted_content: packed.encrypted_content, summary }]
    }
    case 'redacted-reasoning':
      // Another vendor's encrypted reasoning means nothing here.
      return []
  }
}

/** A reasoning item needs both its id and its encrypted content to be replayed with `store: false`. */
function signatureOf(item: WireItem): string | undefined {
  if (!item.encrypted_content) return undefined
  return JSON.stringify({ id: item.id ?? '', encrypted_content: item.encrypted_content })
}

function unpack(signature: string | undefined): { id: string; encrypted_content: string } | undefined {
  if (!signature?.startsWith('{')) return undefined
  try {
    const value = JSON.parse(signature) as { id?: unknown; encrypted_content?: unknown }
    if (typeof value.id === 'string' && typeof value.encrypted_content === 'string') {
      return { id: value.id, encrypted_content: value.encrypted_content }
    }
  } catch {}
  return undefined
}

interface WireItem {
  type?: string
  id?: string
  call_id?: string
  name?: string
  arguments?: string
  encrypted_content?: string | null
}
interface WireError {
  code?: string | null
  type?: string | null
  message?: string
}
interface WireEvent {
  type?: string
  item_id?: string
  item?: WireItem
  delta?: string
  summary_index?: number
  response?: {
    usage?: {
      input_tokens?: number
      input_tokens_details?: { cached_tokens?: number }
      output_tokens?: number
      output_tokens_details?: { reasoning_tokens?: number }
    } | null
    incomplete_details?: { reason?: string } | null
    error?: WireError | null
  }
  // The top-level `error` event: fields inline, or nested under `error`.
  code?: string | null
  message?: string
  error?: WireError | null
}

// The bulk of a stream, read without JSON.parse when exactly this shape (see fast-path.ts). Every
// event carries a new `sequence_number` and `obfuscation`; the frame lets both change.
const OBFUSCATION = String.raw`(?:,"obfuscation":"[A-Za-z0-9+/=_-]*")?`
const FRAME = { frame: true, vary: ['sequence_number'] }
export const OUTPUT_TEXT_DELTA = hotShape(
  String.raw`\{"type":"response\.output_text\.delta",${MEMBERS}"delta":${STRING}(?:,"logprobs":\[\])?${OBFUSCATION}\}`,
  { ...FRAME, tail: String.raw`"(?:,"logprobs":\[\])?${OBFUSCATION}\}` },
)
const OTHERS = members('item_id')
export const ARGUMENTS_DELTA = hotShape(
  String.raw`\{"type":"response\.function_call_arguments\.delta",` +
    String.raw`${OTHERS}"item_id":${ID},${OTHERS}"delta":${STRING}${OBFUSCATION}\}`,
  { ...FRAME, tail: String.raw`"${OBFUSCATION}\}` },
)

class OpenAiParser implements DialectParser {
  /** Function calls by output item id: their `call_id` is what tool results answer. */
  #calls = new Map<string, { id: string; name: string }>()
  #sawCall = false
  #sawRefusal = false
  #done = false
  // The hot shape the last hot event was read through, to read the next ones whole (see `whole`).
  readonly #lanes = new Lanes(ARGUMENTS_DELTA, (shape, hot, out) => this.#hotDelta(shape, hot, out))

  push(event: SseEvent, out: LlmEvent[]): void {
    if (this.#done) return
    // The same frame as the last arguments delta: no regex at all (and no text regex first).
    const framed = hotFrame(event.data, ARGUMENTS_DELTA)
    if (framed) return void this.#lanes.hot(event, ARGUMENTS_DELTA, framed, out)
    const text = hotRead(event.data, OUTPUT_TEXT_DELTA)
    if (text) return void this.#lanes.hot(event, OUTPUT_TEXT_DELTA, text, out)
    const args = hotRead(event.data, ARGUMENTS_DELTA)
    if (args) return void this.#lanes.hot(event, ARGUMENTS_DELTA, args, out)
    const wire = readJson<WireEvent>(event.data, 'openai')
    switch (wire.type) {
      case 'response.output_text.delta':
        if (wire.delta) out.push({ type: 'text-delta', text: wire.delta })
        return
      case 'response.function_call_arguments.delta':
        return this.#argumentsDelta(wire.item_id ?? '', wire.delta ?? '', out)
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (wire.delta) out.push({ type: 'reasoning-delta', text: wire.delta })
        return
      case 'response.reasoning_summary_part.added':
        // Summary parts of one reasoning item read as paragraphs of one block.
        if ((wire.summary_index ?? 0) > 0) out.push({ type: 'reasoning-delta', text: '\n\n' })
        return
      case 'response.refusal.delta':
        this.#sawRefusal = true
        if (wire.delta) out.push({ type: 'text-delta', text: wire.delta })
        return
      case 'response.output_item.added':
        return this.#added(wire.item ?? {}, out)
      case 'response.output_item.done':
        return this.#itemDone(wire.item ?? {}, out)
      case 'response.completed':
      case 'response.incomplete':
        this.#done = true
        out.push(usageEvent(wire), { type: 'finish', reason: this.#finish(wire) })
        return
      case 'response.failed':
        throw vendorError(wire.response?.error ?? {}, 'openai: response.failed')
      case 'error':
        throw vendorError(wire.error ?? wire, 'openai: error event')
    }
  }

  end(): void {
    if (!this.#done) throw truncated('openai', 'response.completed')
  }

  /**
   * The next event whole when it is the last hot event's frame around another string. `push`
   * would read it the same way: a text frame never matches the arguments one `push` tries first.
   */
  whole(text: string, at: number, out: LlmEvent[]): number {
    return this.#done ? -1 : this.#lanes.whole(text, at, out)
  }

  #hotDelta(shape: HotShape, hot: HotEvent, out: LlmEvent[]): boolean {
    if (shape === ARGUMENTS_DELTA) this.#argumentsDelta(hot.id, hot.text, out)
    else if (hot.text) out.push({ type: 'text-delta', text: hot.text })
    return true
  }

  #argumentsDelta(itemId: string, delta: string, out: LlmEvent[]): void {
    const call = this.#calls.get(itemId)
    if (call && delta) out.push({ type: 'tool-input-delta', id: call.id, delta })
  }

  #added(item: WireItem, out: LlmEvent[]): void {
    if (item.type !== 'function_call') return
    const call = { id: item.call_id ?? item.id ?? '', name: item.name ?? '' }
    this.#calls.set(item.id ?? call.id, call)
    this.#sawCall = true
    out.push({ type: 'tool-input-start', id: call.id, name: call.name })
    if (item.arguments) out.push({ type: 'tool-input-delta', id: call.id, delta: item.arguments })
  }

  #itemDone(item: WireItem, out: LlmEvent[]): void {
    if (item.type === 'reasoning') {
      const signature = signatureOf(item)
      if (signature) out.push({ type: 'reasoning-signature', signature })
      return
    }
    if (item.type !== 'function_call') return
    const call = this.#calls.get(item.id ?? item.call_id ?? '')
    if (!call) this.#added(item, out)
    const id = call?.id ?? item.call_id ?? item.id ?? ''
    const name = item.name ?? call?.name ?? ''
    out.push({ type: 'tool-input-end', id }, { type: 'tool-call', id, name, input: toolInput(item.arguments ?? '') })
  }

  #finish(wire: WireEvent): FinishReason {
    if (wire.type === 'response.incomplete') {
      const reason = wire.response?.incomplete_details?.reason
      return reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'other'
    }
    return this.#sawCall ? 'tool-calls' : this.#sawRefusal ? 'content-filter' : 'stop'
  }
}

function usageEvent(wire: WireEvent): LlmEvent {
  const usage = wire.response?.usage
  return {
    type: 'usage',
    inputTokens: count(usage?.input_tokens),
    outputTokens: count(usage?.output_tokens),
    cachedInputTokens: count(usage?.input_tokens_details?.cached_tokens),
    reasoningTokens: count(usage?.output_tokens_details?.reasoning_tokens),
  }
}

function vendorError(error: WireError, fallback: string): ProviderError {
  const vendorType = firstString(error.code, error.type)
  return new ProviderError(classifyVendorError(vendorType, 0), error.message || fallback, { vendorType })
}
