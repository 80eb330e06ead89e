/**
 * The session's durable vocabulary (spec §3.6): `session.next.*` envelopes on
 * the session's topic. Every projection is a fold over these alone. Deltas
 * (tokens, tool-input fragments, progress) are air and never appear here.
 */
import type { Json } from '../ledger/json.ts'
import type { FinishReason, Usage } from '../llm/types.ts'

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
  interrupted: 'session.next.interrupted',
  halted: 'session.next.halted',
  truncated: 'session.next.truncated',
} as const

export type Delivery = 'steer' | 'queue'

/** Payloads by event type. */
export interface EventPayloads {
  [EVENT.created]: { model: string; provider: string; title: string | null; system: string | null; owner: string; share: string[] }
  [EVENT.admitted]: { messageId: string; delivery: Delivery; text: string; digest: string }
  [EVENT.prompted]: { messageIds: string[] }
  [EVENT.drainStarted]: { run: string }
  [EVENT.drainEnded]: { run: string; reason: 'idle' | 'recovered' }
  [EVENT.stepStarted]: { step: string; turn: number; provider: string; model: string }
  [EVENT.stepEnded]: { step: string; finish: FinishReason; usage: Usage | null; cost: number | null }
  [EVENT.stepFailed]: { step: string; error: { code: string; message: string } }
  [EVENT.reasoning]: { step: string; text: string; signature?: string }
  [EVENT.text]: { step: string; text: string }
  [EVENT.toolCalled]: { step: string; toolCallId: string; name: string; input: Json }
  [EVENT.toolSucceeded]: { step: string; toolCallId: string; content: string; truncated: boolean; artifact?: string }
  [EVENT.toolFailed]: { step: string; toolCallId: string; error: { code: string; message: string } }
  [EVENT.toolCancelled]: { step: string; toolCallId: string; reason: string }
  [EVENT.retried]: { step: string; attempt: number; delayMs: number; status: number; message: string }
  [EVENT.interrupted]: { step: string | null; reason: string }
  [EVENT.halted]: { reason: 'turn-limit' | 'step-failed'; limit: number | null }
  /** The model's history is cut back to event `at`: messages `[keep, drop)` are left out from now on. */
  [EVENT.truncated]: { at: number; keep: number; drop: number }
}

export type EventType = keyof EventPayloads
