/**
 * An orchestration's two live streams over its decisions, with a session's
 * semantics: SSE replays after `?after` / `Last-Event-ID`, marks the replay end
 * and tails; a hibernatable WebSocket does the same after `{ "type":
 * "subscribe", "after": N }`. The subscribers themselves are the session's
 * (`Subscribers`); this module is only the orchestration's request handling.
 */
import type { Caller } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'
import { CALLER_HEADER } from '../session/ws-protocol.ts'
import type { Subscribers } from '../session/streams.ts'

/**
 * Opens the stream a request asks for, for the caller the gate set, after `check` authorizes it.
 *
 * @example
 * override fetch(request) { return openStream(request, this.subscribers, (caller) => this.check(caller)) }
 */
export async function openStream(request: Request, subscribers: Subscribers, check: (caller: Caller) => unknown): Promise<Response> {
  const url = new URL(request.url)
  try {
    const caller = JSON.parse(request.headers.get(CALLER_HEADER) ?? 'null') as Caller | null
    if (!caller) throw new NeuronError('TOKEN_MISSING', 'no authenticated caller', { status: 401 })
    check(caller)
    if (url.pathname.endsWith('/ws')) {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') throw new NeuronError('UPGRADE_REQUIRED', 'this endpoint speaks WebSocket', { status: 426 })
      return subscribers.accept(caller)
    }
    if (url.pathname.endsWith('/events')) return subscribers.tail(afterOf(request, url))
    throw new NeuronError('NOT_FOUND', `no stream at ${url.pathname}`, { status: 404 })
  } catch (error) {
    if (!(error instanceof NeuronError)) throw error
    return Response.json({ error: error.toJSON() }, { status: error.status })
  }
}

/** A client's socket message: only `subscribe` is accepted; anything else is answered with an error frame. */
export function socketMessage(ws: WebSocket, message: string | ArrayBuffer, subscribers: Subscribers): void {
  try {
    let msg: { type?: string; after?: unknown }
    try {
      msg = JSON.parse(typeof message === 'string' ? message : new TextDecoder().decode(message)) as typeof msg
    } catch {
      throw new NeuronError('INVALID_MESSAGE', 'a socket message is JSON')
    }
    if (msg?.type !== 'subscribe') throw new NeuronError('INVALID_MESSAGE', 'an orchestration socket only accepts { "type": "subscribe", "after": N }')
    const after = msg.after ?? 0
    if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) throw new NeuronError('INVALID_MESSAGE', 'after must be a non-negative integer')
    subscribers.subscribe(ws, after)
  } catch (error) {
    if (!(error instanceof NeuronError)) throw error
    ws.send(JSON.stringify({ type: 'error', error: error.toJSON() }))
  }
}

function afterOf(request: Request, url: URL): number {
  const after = Number(request.headers.get('last-event-id') ?? url.searchParams.get('after') ?? 0)
  if (!Number.isInteger(after) || after < 0) throw new NeuronError('INVALID_QUERY', 'after / Last-Event-ID must be a non-negative integer sequence', { status: 400 })
  return after
}
