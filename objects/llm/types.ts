/**
 * The normalized vocabulary every wire dialect speaks: what goes in (`LlmRequest`)
 * and what comes out (`LlmEvent`), plus the `Dialect` contract a wire protocol
 * implements. Nothing here knows any vendor.
 */
import type { Json } from '../ledger/json.ts'
import type { ModelRow } from './catalog.ts'
import type { SseEvent } from './sse.ts'

/** One message of the conversation sent to a model. */
export type LlmMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: AssistantPart[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean }

/** One part of an assistant message, in the order the model produced it. */
export type AssistantPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string; signature?: string }
  /** A reasoning block the vendor encrypted (Anthropic `redacted_thinking`): sent back as it came. */
  | { type: 'redacted-reasoning'; data: string }
  | { type: 'tool-call'; id: string; name: string; input: Json }

/** A tool the model may call; `inputSchema` is a JSON Schema object (see `toolSpec`). */
export interface ToolSpec {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

/** One provider turn: everything a dialect needs to build its HTTP request. */
export interface LlmRequest {
  /** Catalog ids, e.g. `'local'` / `'echo-1'` or `'anthropic'` / `'claude-sonnet-4-5'`. */
  provider: string
  model: string
  system?: string
  messages: LlmMessage[]
  tools?: ToolSpec[]
  maxOutputTokens?: number
  temperature?: number
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'other'

/**
 * Token counts of one turn. `inputTokens` includes cached and cache-written
 * tokens; `outputTokens` includes reasoning tokens.
 */
export interface Usage {
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  reasoningTokens: number
  /** Input tokens written to the vendor's prompt cache (Anthropic bills them apart). */
  cacheWriteTokens?: number
}

/**
 * The normalized event stream of one turn. Deltas arrive as they stream; a
 * reasoning block ends with its `reasoning-signature` when the vendor signs it;
 * an encrypted reasoning block arrives whole as `reasoning-redacted`;
 * each tool call ends with `tool-input-end` then `tool-call` (complete input);
 * a call's `tool-input-delta`s may each carry several wire deltas joined (those
 * that arrived in one network chunk), so only their text in order is meaningful;
 * `usage` (when the vendor reports it) then `finish` always close a turn.
 * `retry` is emitted by `streamModel` only, before a new attempt.
 */
export type LlmEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-signature'; signature: string }
  | { type: 'reasoning-redacted'; data: string }
  | { type: 'tool-input-start'; id: string; name: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | { type: 'tool-call'; id: string; name: string; input: Json }
  | ({ type: 'usage' } & Usage)
  | { type: 'retry'; attempt: number; delayMs: number; status: number; message: string }
  | { type: 'finish'; reason: FinishReason }

/** Everything a dialect needs to build one HTTP request. */
export interface DialectInput {
  request: LlmRequest
  model: ModelRow
  /** e.g. `https://api.anthropic.com/v1`; the dialect appends its path. */
  baseUrl: string
  apiKey: string | undefined
  /** Extra headers from the provider's registration (sent last, so they win). */
  headers: Record<string, string>
}

/**
 * A stateful translator from one response's SSE events to normalized events.
 * Both methods append to `out` rather than return arrays, because they run once
 * per wire event on the hot path.
 */
export interface DialectParser {
  /** Throws a `ProviderError` on an in-stream vendor error or unparseable data. */
  push(event: SseEvent, out: LlmEvent[]): void
  /** The body ended. Throws `PROVIDER_STREAM_TRUNCATED` unless the terminal event was seen. */
  end(out: LlmEvent[]): void
  /**
   * Optional fast lane (`SseSink.whole`, through `WireReader`): reads the whole SSE event at `at`
   * of the decoded `text` when it is one the parser already knows the shape of, appending exactly
   * what `push` would for it, and returns the index after its blank line; -1 leaves it to `push`.
   */
  whole?(text: string, at: number, out: LlmEvent[]): number
}

/** One wire protocol (spec §7): how to ask, and how to read the answer. */
export interface Dialect {
  /** The catalog endpoint kind it implements, e.g. `'anthropic/messages'`. */
  readonly kind: string
  request(input: DialectInput): Request
  parser(): DialectParser
}
