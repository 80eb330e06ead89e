/**
 * A session's intake: what comes in through its front door and must be durable before the reply.
 * A prompt is admitted (its `admitted` event and receipt written in one synchronous step, so both
 * commit or neither) and the runner is woken; an interrupt is recorded as a control entry before
 * it acts, then the running turn it names is stopped. The decisions themselves are pure and live
 * in admission.ts and control.ts; this module writes what they decided.
 *
 * The session object hands this module a port (`IntakeHost`) with exactly what it needs.
 *
 * @example
 * const { receipt, duplicate } = admitPrompt(host, { id: 'm1', text: 'hi', delivery: 'queue' }, headers)
 * const reply = requestInterrupt(host, 'user:ada', { id: 'stop-1' }, headers) // { interrupted: true, step, … }
 */
import type { z } from 'zod'
import type { Header } from '../../ledger/headers.ts'
import { admit, type Receipt } from './admission.ts'
import { decideInterrupt, INTERRUPTED, type InterruptReply, type InterruptSchema } from './control.ts'
import { EVENT } from '../events/events.ts'
import type { PromptSchema } from './schemas.ts'
import type { SessionCore } from '../wiring/session-core.ts'

/** What admitting prompts and recording interrupts need of the session object. */
export type IntakeHost = Pick<SessionCore, 'name' | 'receipts' | 'state' | 'record' | 'wake' | 'interruptRunner'>

/**
 * Admits a validated prompt: an exact retry gets its receipt back; otherwise the `admitted` event
 * and its receipt are written in one synchronous step and the runner is woken.
 */
export function admitPrompt(host: IntakeHost, input: z.output<typeof PromptSchema>, headers: Header[]): { receipt: Receipt; duplicate: boolean } {
  const inbox = { admitted: (id: string) => host.receipts.get(id), pending: host.state().pending.length }
  const admission = admit(host.name, inbox, input)
  if ('receipt' in admission) return { receipt: admission.receipt, duplicate: true }
  const { messageId, delivery, text, digest } = admission.append
  const admitted = host.record(EVENT.admitted, { messageId, delivery, text, digest }, headers)
  host.receipts.put(messageId, { seq: admitted.seq, digest })
  host.wake()
  return { receipt: { id: messageId, session: host.name, sequence: admitted.seq, status: 'admitted' }, duplicate: false }
}

/**
 * Records a control entry that stops the running turn it names (or the one running now), before
 * it acts; idempotent by the request's id. `by` is who asked: a principal, or an orchestration
 * cancelling its agent. Idle, a target that is not running, or a retry is a no-op that says so.
 */
export function requestInterrupt(host: IntakeHost, by: string, request: z.output<typeof InterruptSchema>, headers: Header[]): InterruptReply {
  const decided = decideInterrupt(host.state(), request, by)
  if ('reply' in decided) return decided.reply
  const { id, step, reason } = decided.record
  host.record(EVENT.interruptRequested, decided.record, headers)
  if (step !== null) host.interruptRunner(step, id, reason)
  else host.wake()
  return { interrupted: true, step, request: id, pending: host.state().pending.length, message: INTERRUPTED }
}
