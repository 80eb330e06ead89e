/**
 * The session's durable vocabulary (spec §3.6): `session.next.*` envelopes on
 * the session's topic. Every projection is a fold over these alone. Deltas
 * (tokens, tool-input fragments, progress) are air and never appear here.
 */
import type { Stored } from '../../ledger/envelope.ts'
import type { Json } from '../../ledger/json.ts'
import type { FinishReason, Usage } from '../../llm/types.ts'
import type { PromptedBy } from '../turn/authority.ts'

export const EVENT = {
  created: 'session.next.created',
  admitted: 'session.next.admitted',
  prompted: 'session.next.prompted',
  drainStarted: 'session.next.drain.started',
  drainEnded: 'session.next.drain.ended',
  stepStarted: 'session.next.step.started',
  stepEnded: 'session.next.step.ended',
  stepFailed: 'session.next.step.failed',
  reasoning: 'session.next.reasoning',
  text: 'session.next.text',
  toolCalled: 'session.next.tool.called',
  toolSucceeded: 'session.next.tool.succeeded',
  toolFailed: 'session.next.tool.failed',
  toolCancelled: 'session.next.tool.cancelled',
  retried: 'session.next.retried',
  interruptRequested: 'session.next.interrupt.requested',
  interrupted: 'session.next.interrupted',
  compactionStarted: 'session.next.compaction.started',
  compactionEnded: 'session.next.compaction.ended',
  epochStarted: 'session.next.epoch.started',
  contextChanged: 'session.next.context.changed',
  halted: 'session.next.halted',
  truncated: 'session.next.truncated',
  permissionRequested: 'session.next.permission.requested',
  permissionAnswered: 'session.next.permission.answered',
  permissionExpired: 'session.next.permission.expired',
} as const

/** What every session event's type begins with (a display may leave it out). */
export const EVENT_PREFIX = 'session.next.'
// Fails to compile when a name leaves the prefix.
EVENT satisfies Record<string, `${typeof EVENT_PREFIX}${string}`>

export type Delivery = 'steer' | 'queue'

/** Payloads by event type. */
export interface EventPayloads {
  /** `agent`: the profile the session runs (objects/agents/); absent in sessions older than profiles: `default`. */
  [EVENT.created]: { model: string; provider: string; title: string | null; system: string | null; owner: string; share: string[]; agent?: string }
  [EVENT.admitted]: { messageId: string; delivery: Delivery; text: string; digest: string }
  /**
   * `by`: who the loop these prompts join acts for, from their admissions' gate headers (see
   * authority.ts). Absent on events recorded without it.
   */
  [EVENT.prompted]: { messageIds: string[]; by?: PromptedBy }
  [EVENT.drainStarted]: { run: string }
  [EVENT.drainEnded]: { run: string; reason: 'idle' | 'recovered' }
  /**
   * `tools`: the artifact holding the exact tool specs the turn offered (the same ref while unchanged).
   * `chars`: the request's serialized size, which the turn's reported usage calibrates the budget with.
   */
  [EVENT.stepStarted]: { step: string; turn: number; provider: string; model: string; tools?: string; chars?: number }
  [EVENT.stepEnded]: { step: string; finish: FinishReason; usage: Usage | null; cost: number | null }
  [EVENT.stepFailed]: { step: string; error: { code: string; message: string } }
  /** One reasoning block; `redacted` holds an encrypted block's opaque data (then `text` is ''). */
  [EVENT.reasoning]: { step: string; text: string; signature?: string; redacted?: string }
  [EVENT.text]: { step: string; text: string }
  [EVENT.toolCalled]: { step: string; toolCallId: string; name: string; input: Json }
  [EVENT.toolSucceeded]: { step: string; toolCallId: string; content: string; truncated: boolean; artifact?: string }
  [EVENT.toolFailed]: { step: string; toolCallId: string; error: { code: string; message: string } }
  [EVENT.toolCancelled]: { step: string; toolCallId: string; reason: string }
  [EVENT.retried]: { step: string; attempt: number; delayMs: number; status: number; message: string }
  /**
   * A control entry, recorded before it acts: who asked to stop which running turn (`step`, or a
   * compaction's id), and why. `id` makes a retry idempotent.
   */
  [EVENT.interruptRequested]: { id: string; step: string | null; by: string; reason: string }
  /** `request` names the control entry it honours, when one asked for it. */
  [EVENT.interrupted]: { step: string | null; reason: string; request?: string }
  /** Hidden: a compaction turn began summarising the transcript (see compaction.ts). */
  [EVENT.compactionStarted]: { id: string; reason: 'budget' | 'overflow'; estimate: number; budget: number }
  /**
   * Hidden: a compaction ended. Only `completed` changes what the model is shown: a new context
   * epoch whose first messages are the artifact `baseline` (a JSON `Baseline`, see compaction.ts).
   */
  /**
   * A context epoch begins: `baseline` is the artifact of its `Baseline` (see epoch.ts); the
   * epoch's messages are the baseline's, then those folded from the events after `after`.
   */
  [EVENT.epochStarted]: { baseline: string; after: number; reason: 'start' | 'compaction' }
  /** Context sources changed; the model reads the new values at this point of the conversation. */
  [EVENT.contextChanged]: { values: Record<string, Json> }
  [EVENT.compactionEnded]:
    | { id: string; outcome: 'completed'; baseline: string; summarised: number; kept: number; usage: Usage | null }
    | { id: string; outcome: 'failed' | 'interrupted'; error: { code: string; message: string } }
  /** `error` says what to do when the reason is `context-overflow` (code `CONTEXT_OVERFLOW`). */
  [EVENT.halted]: { reason: 'turn-limit' | 'step-failed' | 'context-overflow'; limit: number | null; error?: { code: string; message: string } }
  /**
   * The model's history is cut back to event `at`: messages `[keep, drop)` of the context epoch
   * that starts after event `epoch` are left out from now on (a later epoch, begun by a
   * compaction of what the model saw, no longer holds them).
   */
  /** `head`: the turn the conversation's head moves back to (older cuts moved it themselves and lack it). */
  [EVENT.truncated]: { at: number; keep: number; drop: number; epoch?: number; head?: string }
  /**
   * A tool call asks its owner before acting (objects/permission/approvals.ts); the call is parked
   * until the answer, the expiry (`expiresAt`, ms since the epoch), or an interrupt. `subjects`:
   * what the call acts on (each command of a `bash` line, each path), from which an "always" rule is made.
   */
  [EVENT.permissionRequested]: { step: string; toolCallId: string; tool: string; source: string; subjects: string[]; input: Json; reason: string; expiresAt: number }
  /** The owner's answer: `once` runs the call, `always` also adds `rules` to the session's config, `reject` fails it `PERMISSION_DENIED`. */
  [EVENT.permissionAnswered]: { step: string; toolCallId: string; reply: PermissionReply; by: string; reason?: string; rules?: Json[] }
  /** Nobody answered by `expiresAt`: the call fails `PERMISSION_TIMEOUT`. */
  [EVENT.permissionExpired]: { step: string; toolCallId: string }
}

/** How the owner answers a permission request. */
export type PermissionReply = 'once' | 'always' | 'reject'

export type EventType = keyof EventPayloads

/**
 * One session event: its `type` and the payload that type carries. A fold that switches on
 * `type` sees the payload narrowed to that type's shape, without a cast.
 *
 * @example
 * function textOf(event: SessionEvent): string | null {
 *   return event.type === EVENT.text ? event.payload.text : null
 * }
 */
export type SessionEvent = { [K in EventType]: { type: K; payload: EventPayloads[K] } }[EventType]

/** The event of one type, e.g. `EventOf<typeof EVENT.text>`. */
export type EventOf<K extends EventType> = Extract<SessionEvent, { type: K }>

/** A stored envelope of the vocabulary, its payload exactly its type's (a stored `Stored & EventOf<K>` is one). */
export type StoredEvent<K extends EventType = EventType> = Omit<Stored, 'type' | 'payload'> & EventOf<K>

/** Every event type of the vocabulary, for checks at run time. */
export const EVENT_TYPES: ReadonlySet<string> = new Set<string>(Object.values(EVENT))

/**
 * Whether `event` (a stored envelope, a frame's envelope, or a `{ type, payload }` pair) is one of
 * the session's events; then `type` narrows its payload. The payload is trusted as the session
 * wrote it: every type has a payload schema (event-schemas.ts) that a test holds each written event to.
 *
 * @example
 * if (isSessionEvent(envelope) && envelope.type === EVENT.admitted) envelope.payload.messageId
 */
export function isSessionEvent<E extends { type: string; payload?: unknown }>(event: E): event is E & SessionEvent {
  return EVENT_TYPES.has(event.type)
}

/**
 * Whether `event` is the event of `type`, narrowing its payload (also where the event's type is a
 * type parameter, which a `switch` cannot narrow).
 *
 * @example
 * if (isEvent(envelope, EVENT.stepEnded)) envelope.payload.usage
 */
export function isEvent<E extends { type: string; payload?: unknown }, K extends EventType>(event: E, type: K): event is E & EventOf<K> {
  return event.type === type
}
