/**
 * The WebSocket protocol of a session: what a client may send on the socket, and how a
 * message and a stream's resume point are read (the same limits as an HTTP body).
 * Replies and events use the same shapes as HTTP (see `frames.ts`); the
 * `host.*` messages are a browser host's (docs/host-tools.md).
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { utf8Length } from '../ledger/json.ts'
import { MAX_BODY_BYTES } from '../core/limits.ts'
import { parseJson } from '../core/parse-json.ts'
import { HostOfferSchema } from './host-offer.ts'
import { oneOfTextOrParts, PromptFields } from './schemas.ts'

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
  z.strictObject({ type: z.literal('subscribe'), after: z.number().int().nonnegative().default(0) }),
  // Validated here as HTTP validates a prompt body, so the socket's prompt is parsed once.
  z.strictObject({ type: z.literal('prompt'), ...PromptFields }).refine(...oneOfTextOrParts),
  z.strictObject({ type: z.literal('interrupt'), id: z.string().optional(), step: z.string().optional(), reason: z.string().optional() }),
  // Keepalive; `data` comes back verbatim (benchmarks use it as the raw-send baseline).
  z.strictObject({ type: z.literal('ping'), data: z.string().max(64 * 1024).optional() }),
  HostOfferSchema,
  z.strictObject({ type: z.literal('host.progress'), call: CallId, progress: z.record(z.string(), z.unknown()) }),
  HostResultSchema,
])

export type ClientMessage = z.output<typeof ClientMessageSchema>

/** The caller of a stream request, as the gate established it (set by the worker, never by clients). */
export const CALLER_HEADER = 'x-neuron-caller'
/** The one-use ticket a stream request was authenticated with, if any. */
export const TICKET_HEADER = 'x-neuron-ticket'
/** When the credential a stream request was authenticated with expires (epoch seconds, set by the worker): the stream ends then. */
export const AUTH_EXPIRY_HEADER = 'x-neuron-auth-exp'

/** A client's WebSocket message as JSON, under the same size and nesting limits as an HTTP body. */
export function readMessage(message: string | ArrayBuffer): unknown {
  const bytes = typeof message === 'string' ? utf8Length(message) : message.byteLength
  if (bytes > MAX_BODY_BYTES) {
    throw new NeuronError('PAYLOAD_TOO_LARGE', `a WebSocket message is ${bytes} bytes; the limit is ${MAX_BODY_BYTES}`, {
      status: 413,
      details: { maxBytes: MAX_BODY_BYTES },
    })
  }
  return parseJson(typeof message === 'string' ? message : new TextDecoder().decode(message), { what: 'a WebSocket message' })
}

/** Where a stream resumes: `Last-Event-ID` (SSE's own resume) or `?after=`, a sequence already seen. */
export function afterOf(request: Request, url: URL): number {
  const after = Number(request.headers.get('last-event-id') ?? url.searchParams.get('after') ?? 0)
  if (!Number.isInteger(after) || after < 0) {
    throw new NeuronError('INVALID_QUERY', 'after / Last-Event-ID must be a non-negative integer sequence', { status: 400 })
  }
  return after
}
