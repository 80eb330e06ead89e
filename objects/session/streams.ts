/**
 * A session's live subscribers: SSE tails (in memory, they keep the object
 * awake) and hibernatable WebSockets (their subscription survives hibernation
 * in the socket attachment). Both get the same frames.
 *
 * Nothing here grows with the session's history or with a reader's lag:
 * - an SSE tail is a cursor that pulls pages from the log as its reader takes
 *   bytes (see sse-tail.ts);
 * - a WebSocket replay is paced by its client: each `subscribe {after}` gets one
 *   page; a page that is not the last ends with `replay-page {seq}`, and the
 *   client asks for the next with `subscribe {after: seq}`. The page that
 *   reaches the end of the log ends with `replay-end` and makes the socket live,
 *   in the same synchronous step, so no event falls between replay and live.
 */
import type { Caller } from '../access/authorize.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { type Frame, wsFrame } from './frames.ts'
import { SseTail } from './sse-tail.ts'

/** Per-socket state kept across hibernation (well under the 16 KiB attachment cap). */
export interface SocketAttachment {
  subscribed: boolean
  caller: Caller
  /** A random id naming the socket across hibernation (a host's stored offer is keyed by it). */
  socket?: string
}

/** Events per replay page, on either stream (the ledger also ends a page at 4 MiB of payloads). */
export const REPLAY_PAGE = 200

/**
 * @example
 * subscribers.broadcast({ kind: 'event', envelope })
 * return subscribers.tail(after) // an SSE response
 */
export class Subscribers {
  private readonly tails = new Set<SseTail>()
  /** Live sockets, read once per wake and dropped whenever one is accepted or closes. */
  private sockets: WebSocket[] | null = null

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly ledger: Ledger,
    private readonly topic: string,
    /** The session's last durable sequence: a tail at it is caught up and may take air. */
    private readonly lastSeq: () => number,
  ) {}

  broadcast(frame: Frame): void {
    if (frame.kind === 'event') for (const tail of this.tails) tail.notify()
    else for (const tail of this.tails) tail.air(frame, this.lastSeq())
    const sockets = (this.sockets ??= this.ctx.getWebSockets())
    if (sockets.length === 0) return
    const text = wsFrame(frame)
    for (const ws of sockets) {
      if ((ws.deserializeAttachment() as SocketAttachment | null)?.subscribed) ws.send(text)
    }
  }

  /** An SSE response replaying after `after`, then tailing. */
  tail(after: number): Response {
    const tail = new SseTail((cursor) => this.page(cursor), after, (closed) => this.tails.delete(closed))
    this.tails.add(tail)
    return tail.response
  }

  /** Accepts a hibernatable WebSocket for `caller`; it receives nothing until it subscribes. */
  accept(caller: Caller): Response {
    const { 0: client, 1: server } = new WebSocketPair()
    this.ctx.acceptWebSocket(server)
    server.serializeAttachment({ subscribed: false, caller, socket: crypto.randomUUID() } satisfies SocketAttachment)
    this.sockets = null
    return new Response(null, { status: 101, webSocket: client })
  }

  /**
   * Sends one replay page after `after`. The last page ends with `replay-end` and marks the
   * socket live in the same synchronous step (no await), so no live event can fall in between.
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
      if (attachment.subscribed) ws.serializeAttachment({ ...attachment, subscribed: false } satisfies SocketAttachment)
      return
    }
    ws.send(wsFrame({ kind: 'replay-end', seq: cursor }))
    if (!attachment.subscribed) ws.serializeAttachment({ ...attachment, subscribed: true } satisfies SocketAttachment)
  }

  /** Forget the cached socket list: one was closed or failed. */
  socketsChanged(): void {
    this.sockets = null
  }

  /** How many SSE tails are open (for tests and diagnostics). */
  get tailCount(): number {
    return this.tails.size
  }

  private page(after: number) {
    return this.ledger.byTopic(this.topic, { after, limit: REPLAY_PAGE })
  }
}
