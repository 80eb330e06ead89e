/**
 * The session routes' inputs, as zod schemas: the one source of truth the
 * worker validates with, the OpenAPI document is generated from, and the typed
 * client (client/) derives its types from. Platform-free on purpose (zod and
 * the id rule only), so a browser, Node or a Worker can import it.
 */
import { z } from 'zod'
import { Identifier } from '../../core/validate.ts'
import { AgentName } from '../../agents/profile.ts'

/** The body of `POST /v1/sessions`. */
export const CreateSessionSchema = z.strictObject({
  id: Identifier.optional(),
  model: z.string().regex(/^[^/\s]+\/[^\s]+$/, 'must be provider/model, e.g. local/echo-1').optional(),
  title: z.string().max(512).optional(),
  system: z.string().max(64 * 1024).optional(),
  /** The agent profile the session runs (`GET /v1/agents`); absent: `default`. */
  agent: AgentName.optional(),
  /** Claims that grant access besides ownership, e.g. ["org:acme"]. */
  share: z.array(z.string().min(1).max(256)).max(16).default([]),
})

/** A prompt's fields, shared by the HTTP body and the WebSocket `prompt` message. */
export const PromptFields = {
  id: Identifier.optional(),
  text: z.string().min(1).max(256 * 1024).optional(),
  parts: z.array(z.strictObject({ type: z.literal('text'), text: z.string().max(256 * 1024) })).min(1).max(64).optional(),
  delivery: z.enum(['steer', 'queue']).default('queue'),
}

/** A prompt says what to admit once: as `text`, or as `parts`. */
export const oneOfTextOrParts = [
  (p: { text?: string; parts?: unknown[] }) => (p.text === undefined) !== (p.parts === undefined),
  { message: 'give exactly one of text or parts' },
] as const

/** The body of `POST /v1/sessions/:id/prompt`: `id` makes a retry exactly-once. */
export const PromptSchema = z.strictObject(PromptFields).refine(...oneOfTextOrParts)

/** A prompt as admission takes it: validated, its delivery defaulted. */
export type PromptInput = z.output<typeof PromptSchema>

/** An artifact of a session's store, as events name it (`sha256:` and 64 hex digits) or by its hash alone. */
export const ArtifactRef = z.string().regex(/^(sha256:)?[0-9a-f]{64}$/, 'must be sha256: followed by 64 lowercase hex digits')
