/**
 * The WebSocket protocol of a session: what a client may send on the socket beyond the
 * `subscribe` every stream accepts (delivery/protocol.ts, which also reads each message under
 * an HTTP body's limits). Replies and events use the same shapes as HTTP (delivery/frames.ts);
 * the `host.*` messages are a browser host's (docs/host-tools.md); `permission.answer` answers a
 * pending permission request (docs/approvals.md).
 *
 * @example
 * parseOrThrow(ClientMessageSchema, readMessage(raw), 'INVALID_MESSAGE') // { type: 'prompt', text: 'hi', … }
 */
import { z } from 'zod'
import { SubscribeMessage } from '../../delivery/protocol.ts'
import { PermissionAnswerSchema } from '../../permission/approvals.ts'
import { HostOfferSchema } from '../host-tools/host-offer.ts'
import { oneOfTextOrParts, PromptFields } from '../intake/schemas.ts'

const CallId = z.string().min(1).max(256)

/** A host's answer to one call: the content the model reads, or a coded failure. */
const HostResultSchema = z
  .strictObject({
    type: z.literal('host.result'),
    call: CallId,
    ok: z.boolean(),
    content: z.string().optional(),
    error: z.strictObject({ code: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/), message: z.string().max(2048) }).optional(),
  })
  .refine((m) => (m.ok ? m.content !== undefined && m.error === undefined : m.error !== undefined && m.content === undefined), {
    message: 'ok: true carries content; ok: false carries error',
  })

export const ClientMessageSchema = z.discriminatedUnion('type', [
  SubscribeMessage,
  // Validated here as HTTP validates a prompt body, so the socket's prompt is parsed once.
  z.strictObject({ type: z.literal('prompt'), ...PromptFields }).refine(...oneOfTextOrParts),
  z.strictObject({ type: z.literal('interrupt'), id: z.string().optional(), step: z.string().optional(), reason: z.string().optional() }),
  // Keepalive; `data` comes back verbatim (benchmarks use it as the raw-send baseline).
  z.strictObject({ type: z.literal('ping'), data: z.string().max(64 * 1024).optional() }),
  HostOfferSchema,
  z.strictObject({ type: z.literal('host.progress'), call: CallId, progress: z.record(z.string(), z.unknown()) }),
  HostResultSchema,
  // The owner's answer to a pending permission request; the reply is `permission.answered`.
  PermissionAnswerSchema.extend({ type: z.literal('permission.answer') }),
])

export type ClientMessage = z.output<typeof ClientMessageSchema>
