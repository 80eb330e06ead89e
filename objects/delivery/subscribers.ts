/**
 * A stream's live subscribers: SSE tails (in memory, they keep the object
 * awake) and hibernatable WebSockets (their subscription survives hibernation
 * in the socket attachment). Both get the same frames. One class serves every
 * object that streams an address of its ledger (a session, an orchestration).
 *
 * Nothing here grows with the stream's history or with a reader's lag:
 * - an SSE tail is a cursor that pulls pages from the log as its reader takes
 *   bytes (see sse-tail.ts);
 * - a WebSocket replay is paced by its client: each `subscribe {after}` gets one
 *   page; a page that is not the last ends with `replay-page {seq}`, and the
 *   client asks for the next with `subscribe {after: seq}`. The page that
 *   reaches the end of the log ends with `replay-end` and makes the socket live,
 *   in the same synchronous step, so no event falls between replay and live.
 *
 * Deltas are air, so the replay alone would leave a reconnecting client without
 * what the air carried while it was away. A stream with air gives its `AirFold`
 * (a session: the open step's partial output, capped: see session/open-step.ts);
 * its snapshot follows `replay-end` as one `snapshot` frame, in the same
 * synchronous step again: a reconnect costs the missed events plus one frame,
 * and renders what a client that never left renders.
 *
 * A socket lives no longer than the credential it was opened with: once that has
 * expired, its next message and the next frame meant for it (an event of a turn
 * running meanwhile) get one `error` frame, TOKEN_EXPIRED, and the socket closes
 * (4401), so a client learns why instead of being served past its authorization.
 */
import type { Caller } from '../access/authorize.ts'
import type { Ledger } from '../ledger/ledger.ts'
import type { Stored } from '../ledger/envelope.ts'
import { type Frame, wsFrame } from './frames.ts'
import { SseTail } from './sse-tail.ts'

/**
 * What a stream folds its air into, so a subscriber that missed some gets it whole: every frame
 * is folded before it is sent, and `snapshot` is what a (re)joining subscriber receives.
 *
 * @example
 * new Subscribers(ctx, ledger, topic, () => state.lastSeq, new OpenStep()) // a session's open step
 */
export interface AirFold<Air, Snapshot> {
  event(envelope: Stored): void
  delta(delta: Air): void
  /** What the air carried so far; null when there is nothing to stand in for. */
  snapshot(): Snapshot | null
}

/**
 * Answers a client's close with its own code where the protocol lets an endpoint send that code,
 * else 1000. A client that vanished without a close frame reaches `webSocketClose` as 1006, one
 * that sent no code as 1005: reserved codes, and `ws.close` throws on them ("Invalid WebSocket
 * close code", uncaught).
 *
 * @example
 * override async webSocketClose(ws: WebSocket, code: number) { answerClose(ws, code) }
 */
export function answerClose(ws: WebSocket, code: number): void {
  ws.close(sendableCloseCode(code) ? code : 1000, 'closing')
}

/** RFC 6455 §7.4: what an endpoint may send (1004–1006 and 1015 are reserved, 1016–2999 unassigned). */
export function sendableCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)
}

/** Per-socket state kept across hibernation (well under the 16 KiB attachment cap). */
export interface SocketAttachment {
  subscribed: boolean
  caller: Caller
  /** A random id naming the socket across hibernation (a host's stored offer is keyed by it). */
  socket?: string
  /** When the credential it was opened with expires (epoch ms); null: never (the object's own caller). */
  authExp?: number | null
}

/** The close code of a socket whose credential expired (4000–4999 are the application's). */
export const AUTH_EXPIRED_CLOSE = 4401

/** Events per replay page, on either stream (the ledger also ends a page at 4 MiB of payloads). */
export const REPLAY_PAGE = 200

/**
 * @example
 * subscribers.broadcast({ kind: 'event', envelope })
 * return subscribers.tail(after) // an SSE response
 */
export class Subscribers<Air = never, Snapshot = never> {
  private readonly tails = new Set<SseTail>()
  /**
   * The subscribed sockets, read once (each attachment deserialized, ~50 µs a socket in workerd)
   * and read again after any socket is accepted, closes, or changes its subscription.
   */
  private live: WebSocket[] | null = null
  /** Each socket's caller and credential expiry, read from its attachment once per wake (they never change). */
  private readonly callers = new WeakMap<WebSocket, { caller: Caller; authExp: number }>()
  constructor(
    private readonly ctx: DurableObjectState,
    private readonly ledger: Ledger,
    private readonly topic: string,
    /** The stream's last durable sequence: a tail at it is caught up and may take air. */
    private readonly lastSeq: () => number,
    /** What the air is folded into (what a reconnect would miss); a stream without air has none. */
    private readonly fold: AirFold<Air, Snapshot> | null = null,
  ) {}

  broadcast(frame: Frame<Air, Snapshot>): void {
    // The air is folded first, so a snapshot taken for any subscriber below already holds this frame.
    if (frame.kind === 'event') {
      this.fold?.event(frame.envelope)
      for (const tail of this.tails) tail.notify(frame.envelope)
    } else {
      if (frame.kind === 'delta') this.fold?.delta(frame.delta)
      for (const tail of this.tails) tail.air(frame, this.lastSeq())
    }
    const live = (this.live ??= this.ctx.getWebSockets().filter((ws) => (ws.deserializeAttachment() as SocketAttachment | null)?.subscribed))
    if (live.length === 0) return
    const text = wsFrame(frame)
    const now = Date.now()
    for (const ws of live) if (!this.expire(ws, now)) ws.send(text)
  }

  /** The caller a socket was accepted for. */
  callerOf(ws: WebSocket): Caller {
    return this.accepted(ws).caller
  }

  /**
   * Ends a socket whose credential expired: one `error` frame (TOKEN_EXPIRED), then close. True
   * when it did (the socket must not be used any more).
   */
  expire(ws: WebSocket, now = Date.now()): boolean {
    if (now < this.accepted(ws).authExp) return false
    try {
      ws.send(JSON.stringify({ type: 'error', error: { code: 'TOKEN_EXPIRED', message: 'the token this socket was opened with has expired: sign in again' } }))
      ws.close(AUTH_EXPIRED_CLOSE, 'token expired')
    } catch {
      // already closing
    }
    this.socketsChanged()
    return true
  }

  private accepted(ws: WebSocket): { caller: Caller; authExp: number } {
    let accepted = this.callers.get(ws)
    if (!accepted) {
      const attachment = ws.deserializeAttachment() as SocketAttachment
      this.callers.set(ws, (accepted = { caller: attachment.caller, authExp: attachment.authExp ?? Infinity }))
    }
    return accepted
  }

  /** An SSE response replaying after `after`, then tailing, until `authExp` (epoch ms; null: no end). */
  tail(after: number, authExp: number | null = null): Response {
    const tail = new SseTail((cursor) => this.page(cursor), after, (closed) => this.tails.delete(closed), { snapshot: () => this.snapshot(), authExp })
    this.tails.add(tail)
    return tail.response
  }

  /** Accepts a hibernatable WebSocket for `caller` until `authExp` (epoch ms; null: no end); it receives nothing until it subscribes. */
  accept(caller: Caller, authExp: number | null = null): Response {
    const { 0: client, 1: server } = new WebSocketPair()
    this.ctx.acceptWebSocket(server)
    server.serializeAttachment({ subscribed: false, caller, socket: crypto.randomUUID(), authExp } satisfies SocketAttachment)
    this.live = null
    return new Response(null, { status: 101, webSocket: client })
  }

  /**
   * Sends one replay page after `after`. The last page ends with `replay-end` (then the fold's
   * snapshot, if it has one) and marks the socket live in the same synchronous step
   * (no await), so no live event or delta can fall in between.
   */
  subscribe(ws: WebSocket, after: number): void {
    const page = this.page(after)
    let cursor = after
    for (const envelope of page.items) {
      ws.send(wsFrame({ kind: 'event', envelope }))
      cursor = envelope.seq
    }
    const attachment = ws.deserializeAttachment() as SocketAttachment
    if (page.next !== null) {
      ws.send(wsFrame({ kind: 'replay-page', seq: cursor }))
      if (attachment.subscribed) this.resubscribe(ws, { ...attachment, subscribed: false })
      return
    }
    ws.send(wsFrame({ kind: 'replay-end', seq: cursor }))
    const snapshot = this.snapshot()
    if (snapshot) ws.send(wsFrame(snapshot))
    if (!attachment.subscribed) this.resubscribe(ws, { ...attachment, subscribed: true })
  }

  /** Forget the cached socket list: one was closed or failed. */
  socketsChanged(): void {
    this.live = null
  }

  private resubscribe(ws: WebSocket, attachment: SocketAttachment): void {
    ws.serializeAttachment(attachment)
    this.live = null
  }

  /** How many SSE tails are open (for tests and diagnostics). */
  get tailCount(): number {
    return this.tails.size
  }

  /** The fold's snapshot as a frame; null when there is nothing to stand in for (a session: no step open). */
  snapshot(): Frame<Air, Snapshot> | null {
    const snapshot = this.fold?.snapshot() ?? null
    return snapshot ? { kind: 'snapshot', snapshot } : null
  }

  private page(after: number) {
    return this.ledger.byTopic(this.topic, { after, limit: REPLAY_PAGE })
  }
}
