/**
 * What every stream endpoint reads the same way: the headers the worker sets on a stream request
 * (never a client), how a socket message is read (the same limits as an HTTP body), the one
 * message every socket accepts (`subscribe`), and where a stream resumes. What else a socket may
 * send is its object's (a session's: session/ws-protocol.ts).
 *
 * @example
 * const msg = parseOrThrow(z.discriminatedUnion('type', [SubscribeMessage, ...mine]), readMessage(raw), 'INVALID_MESSAGE')
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { MAX_BODY_BYTES } from '../core/limits.ts'
import { parseJson } from '../core/parse-json.ts'
import { utf8Length } from '../ledger/json.ts'

/** The caller of a stream request, as the gate established it (set by the worker, never by clients). */
export const CALLER_HEADER = 'x-neuron-caller'
/** The one-use ticket a stream request was authenticated with, if any. */
export const TICKET_HEADER = 'x-neuron-ticket'
/** When the credential a stream request was authenticated with expires (epoch seconds, set by the worker): the stream ends then. */
export const AUTH_EXPIRY_HEADER = 'x-neuron-auth-exp'

/** `{ "type": "subscribe", "after": N }`: one replay page after `N`, then live once the replay reaches the end. */
export const SubscribeMessage = z.strictObject({ type: z.literal('subscribe'), after: z.number().int().nonnegative().default(0) })

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
