/**
 * Admission (spec §3.1): a prompt becomes a durable inbox row before the reply,
 * and never waits for execution. Message ids make retries safe: the same id with
 * the same content gets the same receipt; the same id with other content is a
 * conflict.
 */
import type { z } from 'zod'
import { NeuronError } from '../errors.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { canonicalJson } from '../ledger/json.ts'
import type { Delivery } from './events.ts'
import type { SessionState } from './projection.ts'
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

/**
 * Normalizes a prompt and decides its fate against the inbox: a new row to
 * append, or the receipt of an exact retry. Throws `PROMPT_CONFLICT` (409).
 *
 * @example
 * const decision = admit(state, input)
 * if ('receipt' in decision) return decision // exact retry
 */
export function admit(session: string, state: SessionState, input: z.output<typeof PromptSchema>): { append: Admissible } | { receipt: Receipt } {
  const text = input.text ?? input.parts!.map((part) => part.text).join('\n')
  const messageId = input.id ?? crypto.randomUUID()
  const digest = sha256Hex(canonicalJson({ text, delivery: input.delivery }))
  const existing = state.admissions.get(messageId)
  if (existing) {
    if (existing.digest !== digest) {
      throw new NeuronError('PROMPT_CONFLICT', `message ${messageId} was already admitted with different content`, {
        status: 409,
        details: { id: messageId, sequence: existing.seq },
      })
    }
    return { receipt: { id: messageId, session, sequence: existing.seq, status: 'admitted' } }
  }
  return { append: { messageId, delivery: input.delivery, text, digest } }
}
