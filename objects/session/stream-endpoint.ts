/**
 * A session's stream endpoint: the object's `fetch` (an SSE tail or a WebSocket upgrade) and
 * its hibernatable WebSocket handlers (a client's messages, a socket closing or failing). The
 * subscribers themselves live in `streams.ts`; the protocol a client speaks in `ws-protocol.ts`.
 * This module only turns requests and messages into calls on the session, so the session
 * object stays a composition.
 *
 * The session object hands this module a port (`StreamHost`) with exactly what it needs.
 *
 * @example
 * override fetch(request) { return openStream(this.streams, request) }
 * override async webSocketMessage(ws, message) { socketMessage(this.streams, ws, message) }
 */
import type { Caller } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'
import { failureOf, failureResponse } from '../core/failure.ts'
import { settle } from '../core/rpc.ts'
import { parseOrThrow } from '../core/validate.ts'
import type { Receipt } from './admission.ts'
import type { InterruptReply } from './control.ts'
import type { HostTools } from './host-tools.ts'
import type { PromptInput } from './schemas.ts'
import { answerClose, type Subscribers } from './streams.ts'
import { spendTicket } from './tickets.ts'
import { afterOf, AUTH_EXPIRY_HEADER, CALLER_HEADER, ClientMessageSchema, readMessage, TICKET_HEADER } from './ws-protocol.ts'

/** What the stream endpoint needs of the session object. */
export interface StreamHost {
  /** Where one-use stream tickets are spent. */
  readonly kv: SyncKvStorage
  readonly subscribers: Subscribers
  readonly hostTools: HostTools
  /** Authorizes `caller` to read the session; throws `SESSION_NOT_FOUND` as for an unknown one. */
  read(caller: Caller): void
  /** Admits a prompt the socket's message already validated; its failures are thrown. */
  prompt(caller: Caller, input: PromptInput): { receipt: Receipt; duplicate: boolean }
  /** The session's RPC `interrupt`, likewise. */
  interrupt(caller: Caller, body: unknown): InterruptReply
}

/** The stream a request asks for (`…/ws` or `…/events`), for the caller the gate set; failures are responses. */
export function openStream(host: StreamHost, request: Request): Response {
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
    return failureResponse(thrown, 'SessionObject.fetch')
  }
}

/** One client message on a session socket; every failure is answered on the socket as an `error` frame. */
export function socketMessage(host: StreamHost, ws: WebSocket, message: string | ArrayBuffer): void {
  try {
    if (host.subscribers.expire(ws)) return // its credential expired: refused, and the socket closed
    const caller = host.subscribers.callerOf(ws)
    const msg = parseOrThrow(ClientMessageSchema, readMessage(message), 'INVALID_MESSAGE')
    if (msg.type === 'ping') return ws.send(JSON.stringify({ type: 'pong', data: msg.data ?? '' }))
    if (msg.type === 'subscribe') {
      host.read(caller)
      return host.subscribers.subscribe(ws, msg.after)
    }
    if (msg.type === 'host.offer' || msg.type === 'host.progress' || msg.type === 'host.result') return host.hostTools.receive(ws, caller, msg)
    if (msg.type === 'interrupt') {
      const { type: _, ...request } = msg
      return ws.send(JSON.stringify({ type: 'interrupt', ...settle(host.interrupt(caller, request)) }))
    }
    const { type: _, ...prompt } = msg
    const reply = host.prompt(caller, prompt)
    // The `admitted` event's frame is queued first (the bus delivers it in a microtask queued by
    // the append): every subscriber, the sender too, gets the event without waiting behind this
    // reply's send. Both leave with the same commit.
    queueMicrotask(() => ws.send(JSON.stringify({ type: 'receipt', ...reply })))
  } catch (thrown) {
    ws.send(JSON.stringify({ type: 'error', error: failureOf(thrown, 'SessionObject.webSocketMessage').error }))
  }
}

/** A socket closed (`code` as the client sent it) or failed (`code` undefined): it leaves the subscribers and its host offer ends. */
export function socketGone(host: StreamHost, ws: WebSocket, code?: number): void {
  host.subscribers.socketsChanged()
  host.hostTools.closed(ws)
  if (code !== undefined) answerClose(ws, code)
}
