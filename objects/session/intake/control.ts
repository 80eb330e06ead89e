/**
 * Durable control: an interrupt is a control entry recorded before it acts
 * (`session.next.interrupt.requested`), naming the running turn it stops.
 * Naming the target is what makes a double click or a client retry safe: a
 * second interrupt for a turn that already ended is a no-op, and an interrupt
 * never reaches a turn that started after it was sent. The same request id
 * again gets the first answer back. On wake, an entry whose turn never got to
 * honour it is honoured by recovery (see recovery.ts).
 */
import { z } from 'zod'
import { Identifier } from '../../core/validate.ts'
import type { EventPayloads, EVENT } from '../events/events.ts'
import type { SessionState } from '../events/projection.ts'

/** The body of `POST /v1/sessions/:id/interrupt` (every field optional; an empty body is `{}`). */
export const InterruptSchema = z.strictObject({
  /** Idempotency key: a retry with the same id is answered as the first request was. */
  id: Identifier.optional(),
  /** The turn the client saw running (the view's `step`, or an event's). Default: whatever runs now. */
  step: z.string().min(1).max(128).optional(),
  reason: z.string().max(1024).optional(),
})

/** The answer's message when a control entry was recorded. */
export const INTERRUPTED = 'the running turn was interrupted'

/** What `interrupt` answers. */
export interface InterruptReply {
  interrupted: boolean
  /** The turn the interrupt targeted, or null when nothing was running. */
  step: string | null
  /** The control entry's id, when one was recorded. */
  request: string | null
  pending: number
  message: string
  duplicate?: true
}

/**
 * Decides an interrupt against the projection: the entry to record, or the answer of a no-op
 * (idle, a target that is not running, or a retry of the last entry).
 *
 * @example
 * const decision = decideInterrupt(state, { step: 'abc' }, 'user#ada')
 * if ('record' in decision) record(EVENT.interruptRequested, decision.record)
 */
export function decideInterrupt(
  state: SessionState,
  input: z.output<typeof InterruptSchema>,
  by: string,
): { record: EventPayloads[typeof EVENT.interruptRequested] } | { reply: InterruptReply } {
  const pending = state.pending.length
  const last = state.interrupt
  if (input.id !== undefined && last?.id === input.id) {
    return { reply: { interrupted: true, step: last.step, request: last.id, pending, message: INTERRUPTED, duplicate: true } }
  }
  const running = state.step ?? state.compaction
  const target = input.step ?? running
  if (target === null) {
    // A loop between turns (a promotion not yet at its next turn) is stopped at its boundary.
    if (!state.loopOpen) return { reply: { interrupted: false, step: null, request: null, pending, message: 'nothing was running' } }
  } else if (target !== running) {
    return { reply: { interrupted: false, step: target, request: null, pending, message: `turn ${target} is not running (it ended, or never started)` } }
  }
  return { record: { id: input.id ?? crypto.randomUUID(), step: target, by, reason: input.reason ?? `interrupted by ${by}` } }
}

/** Why a turn's controller was aborted by an interrupt, and the control entry that asked. */
export class Interrupted extends Error {
  override name = 'Interrupted'
  constructor(
    message: string,
    readonly request: string | undefined,
  ) {
    super(message)
  }
}
