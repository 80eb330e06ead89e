/**
 * The one stream endpoint: an object's `fetch` (an SSE tail or a WebSocket upgrade) and its
 * hibernatable WebSocket handlers (a client's messages, a socket closing or failing), for every
 * object that streams (a session, an orchestration). The subscribers live in `subscribers.ts`;
 * what every socket reads the same way in `protocol.ts`. Each object hands this module a port
 * (`StreamHost`) with how it authorizes a reader and what its sockets accept beyond `subscribe`,
 * so the object stays a composition and every stream follows the same rules: the caller the gate
 * set, a credential's expiry, a one-use ticket spent only after everything that can refuse, and
 * every failure answered by the one failure rule (a response, or an `error` frame on the socket).
 *
 * @example
 * override fetch(request) { return openStream(this.streams, request) }
 * override async webSocketMessage(ws, message) { socketMessage(this.streams, ws, message) }
 * override async webSocketClose(ws, code) { socketGone(this.streams, ws, code) }
 */
import type { z } from 'zod'
import type { Caller } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'
import { failureOf, failureResponse } from '../core/failure.ts'
import { parseOrThrow } from '../core/validate.ts'
import { afterOf, AUTH_EXPIRY_HEADER, CALLER_HEADER, readMessage, TICKET_HEADER } from './protocol.ts'
import { answerClose, type Subscribers } from './subscribers.ts'
import { spendTicket } from './tickets.ts'

/** A socket's `subscribe`, the one message every stream accepts. */
type Subscribe = { type: 'subscribe'; after: number }

/** What the endpoint needs of the object it serves; `M` is every message its sockets accept. */
export interface StreamHost<M extends { type: string } = Subscribe> {
  /** The object's name in failure logs (`SessionObject`, `OrchestrationObject`). */
  readonly name: string
  /** Where one-use stream tickets are spent. */
  readonly kv: SyncKvStorage
  readonly subscribers: Subscribers<unknown, unknown>
  /** Every message a socket may send: `SubscribeMessage` (protocol.ts) and the object's own. */
  readonly messages: z.ZodType<M, unknown>
  /** Authorizes `caller` to read the stream; throws the object's not-found error for one who may not. */
  read(caller: Caller): void
  /** A validated message other than `subscribe`, from `caller`; what it throws is answered as an `error` frame. */
  receive?(ws: WebSocket, caller: Caller, message: Exclude<M, Subscribe>): void
  /** A socket closed or failed (after it left the subscribers). */
  gone?(ws: WebSocket): void
}

/** The stream a request asks for (`…/ws` or `…/events`), for the caller the gate set; failures are responses. */
export function openStream<M extends { type: string }>(host: StreamHost<M>, request: Request): Response {
  const url = new URL(request.url)
  try {
    const caller = JSON.parse(request.headers.get(CALLER_HEADER) ?? 'null') as Caller | null
    if (!caller) throw new NeuronError('TOKEN_MISSING', 'no authenticated caller', { status: 401 })
    host.read(caller)
    // A stream lives no longer than the credential it was opened with (absent: a caller of the object's own).
    const seconds = Number(request.headers.get(AUTH_EXPIRY_HEADER) ?? Infinity)
    const authExp = Number.isFinite(seconds) ? seconds * 1000 : null
    // Everything that can refuse the request is checked before the ticket is spent (a write).
    if (url.pathname.endsWith('/ws')) {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
        throw new NeuronError('UPGRADE_REQUIRED', 'this endpoint speaks WebSocket', { status: 426 })
      }
      spendTicket(host.kv, request.headers.get(TICKET_HEADER))
      return host.subscribers.accept(caller, authExp)
    }
    if (url.pathname.endsWith('/events')) {
      const after = afterOf(request, url)
      spendTicket(host.kv, request.headers.get(TICKET_HEADER))
      return host.subscribers.tail(after, authExp)
    }
    throw new NeuronError('NOT_FOUND', `no stream at ${url.pathname}`, { status: 404 })
  } catch (thrown) {
    return failureResponse(thrown, `${host.name}.fetch`)
  }
}

/** One client message on a socket; every failure is answered on the socket as an `error` frame. */
export function socketMessage<M extends { type: string }>(host: StreamHost<M>, ws: WebSocket, message: string | ArrayBuffer): void {
  try {
    if (host.subscribers.expire(ws)) return // its credential expired: refused, and the socket closed
    const caller = host.subscribers.callerOf(ws)
    const msg = parseOrThrow(host.messages, readMessage(message), 'INVALID_MESSAGE')
    if (isSubscribe(msg)) {
      host.read(caller)
      return host.subscribers.subscribe(ws, msg.after)
    }
    if (!host.receive) throw new NeuronError('INVALID_MESSAGE', `this socket does not accept ${msg.type}`, { status: 400 })
    host.receive(ws, caller, msg as Exclude<M, Subscribe>)
  } catch (thrown) {
    ws.send(JSON.stringify({ type: 'error', error: failureOf(thrown, `${host.name}.webSocketMessage`).error }))
  }
}

/** A socket closed (`code` as the client sent it) or failed (`code` undefined): it leaves the subscribers, then the host hears of it. */
export function socketGone<M extends { type: string }>(host: StreamHost<M>, ws: WebSocket, code?: number): void {
  host.subscribers.socketsChanged()
  host.gone?.(ws)
  if (code !== undefined) answerClose(ws, code)
}

function isSubscribe(msg: { type: string }): msg is Subscribe {
  return msg.type === 'subscribe'
}
