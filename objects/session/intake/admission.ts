/**
 * Admission (spec §3.1): a prompt becomes a durable inbox row before the reply,
 * and never waits for execution. Message ids make retries safe: the same id with
 * the same content gets the same receipt; the same id with other content is a
 * conflict.
 */
import type { z } from 'zod'
import { NeuronError } from '../../core/errors.ts'
import { sha256Hex } from '../../ledger/hash.ts'
import { canonicalJson } from '../../ledger/json.ts'
import { MAX_PENDING } from '../../core/limits.ts'
import type { Delivery } from '../events/events.ts'
import type { Admission } from '../events/projection.ts'
import type { PromptSchema } from './schemas.ts'

/** What `prompt` returns: the inbox receipt. */
export interface Receipt {
  id: string
  session: string
  sequence: number
  status: 'admitted'
}

/** A validated prompt, ready to append. */
export interface Admissible {
  messageId: string
  delivery: Delivery
  text: string
  digest: string
}

/** What admission needs to know about the session: earlier admissions by id, and the inbox depth. */
export interface Inbox {
  admitted(messageId: string): Admission | undefined
  pending: number
}

/**
 * Normalizes a prompt and decides its fate against the inbox: a new row to
 * append, or the receipt of an exact retry. Throws `PROMPT_CONFLICT` (409), or
 * `INBOX_FULL` (429) when `MAX_PENDING` prompts already wait.
 *
 * @example
 * const decision = admit('s1', { admitted: (id) => receipts.get(id), pending: 0 }, input)
 * if ('receipt' in decision) return decision // exact retry
 */
export function admit(session: string, inbox: Inbox, input: z.output<typeof PromptSchema>): { append: Admissible } | { receipt: Receipt } {
  const text = input.text ?? input.parts!.map((part) => part.text).join('\n')
  const messageId = input.id ?? crypto.randomUUID()
  const digest = sha256Hex(canonicalJson({ text, delivery: input.delivery }))
  const existing = inbox.admitted(messageId)
  if (existing) {
    if (existing.digest !== digest) {
      throw new NeuronError('PROMPT_CONFLICT', `message ${messageId} was already admitted with different content`, {
        status: 409,
        details: { id: messageId, sequence: existing.seq },
      })
    }
    return { receipt: { id: messageId, session, sequence: existing.seq, status: 'admitted' } }
  }
  if (inbox.pending >= MAX_PENDING) {
    throw new NeuronError('INBOX_FULL', `${inbox.pending} prompts already wait in session ${session}; retry once some have run`, {
      status: 429,
      details: { pending: inbox.pending, limit: MAX_PENDING },
    })
  }
  return { append: { messageId, delivery: input.delivery, text, digest } }
}
