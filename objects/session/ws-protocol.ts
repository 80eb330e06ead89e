/**
 * The WebSocket protocol of a session: what a client may send on the socket.
 * Replies and events use the same shapes as HTTP (see `frames.ts`).
 */
import { z } from 'zod'

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('subscribe'), after: z.number().int().nonnegative().default(0) }),
  z.strictObject({
    type: z.literal('prompt'),
    id: z.string().optional(),
    text: z.string().optional(),
    parts: z.array(z.unknown()).optional(),
    delivery: z.enum(['steer', 'queue']).optional(),
  }),
  z.strictObject({ type: z.literal('interrupt'), id: z.string().optional(), step: z.string().optional(), reason: z.string().optional() }),
  // Keepalive; `data` comes back verbatim (benchmarks use it as the raw-send baseline).
  z.strictObject({ type: z.literal('ping'), data: z.string().max(64 * 1024).optional() }),
])

/** The caller of a stream request, as the gate established it (set by the worker, never by clients). */
export const CALLER_HEADER = 'x-neuron-caller'
/** The one-use ticket a stream request was authenticated with, if any. */
export const TICKET_HEADER = 'x-neuron-ticket'
