/**
 * A hook's shapes, platform-free (zod, the id rule and the limits only), so the client names them:
 * the body that creates one, a hook as listed, and what a delivery carries besides its body.
 */
import { z } from 'zod'
import { HOOK_LIMITS } from '../../core/limits.ts'
import { Identifier } from '../../core/validate.ts'

/** The body of `POST /v1/sessions/{id}/hooks`. */
export const CreateHookSchema = z.strictObject({
  name: Identifier.max(64),
  /** The prompt each delivery admits: `{{body}}` is replaced by the delivery's JSON. */
  template: z.string().min(1).max(HOOK_LIMITS.templateChars).refine((t) => t.includes('{{body}}'), 'must place the body with {{body}}'),
  delivery: z.enum(['queue', 'steer']).default('queue'),
})

/** A hook as listed (its secret never is). */
export interface Hook {
  name: string
  /** The id its deliveries are posted to: `POST /v1/hooks/{id}`. */
  id: string
  template: string
  delivery: 'queue' | 'steer'
  by: string
}

/** What a delivery carries besides its body. */
export interface DeliveryHeaders {
  timestamp: string | undefined
  delivery: string | undefined
  signature: string | undefined
}

