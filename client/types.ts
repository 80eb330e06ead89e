/**
 * The client's types, derived from the server's own definitions: request bodies
 * from the zod schemas the routes validate with (objects/session/schemas.ts),
 * answers from the types the server builds them with. Type-only imports: nothing
 * of the server runs in the client.
 */
import type { z } from 'zod'
import type { Stored } from '../objects/ledger/envelope.ts'
import type { Page } from '../objects/ledger/page.ts'
import type { Receipt } from '../objects/session/admission.ts'
import type { Frame } from '../objects/session/frames.ts'
import type { SessionView } from '../objects/session/projection.ts'
import type { CreateSessionSchema, PromptSchema } from '../objects/session/schemas.ts'

export type CreateSessionInput = z.input<typeof CreateSessionSchema>
export type PromptInput = z.input<typeof PromptSchema>
export type { Page, Receipt, SessionView, Stored }
/** What a session stream yields: durable events (with `seq`), live deltas, and where replay ended. */
export type SessionFrame = Frame
export interface PromptResult {
  receipt: Receipt
  /** True when the server had already admitted this message id (a retry). */
  duplicate: boolean
}
export interface InterruptResult {
  interrupted: boolean
  pending: number
  message: string
}
