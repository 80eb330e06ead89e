/**
 * A session's live subscribers: SSE tails (in memory, they keep the object
 * awake) and hibernatable WebSockets (their subscription survives hibernation
 * in the socket attachment). Both get the same frames.
 */
import type { Caller } from '../access/authorize.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { type Frame, wsFrame } from './frames.ts'
import { SseTail } from './sse-tail.ts'

/** Per-socket state kept across hibernation (well under the 16 KiB attachment cap). */
export interface SocketAttachment {
  subscribed: boolean
  caller: Caller
}

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
  ) {}

  broadcast(frame: Frame): void {
    for (const tail of this.tails) tail.push(frame)
    const sockets = (this.sockets ??= this.ctx.getWebSockets())
    if (sockets.length === 0) return
    const text = wsFrame(frame)
    for (const ws of sockets) {
      if ((ws.deserializeAttachment() as SocketAttachment | null)?.subscribed) ws.send(text)
    }
  }

  /** An SSE response replaying after `after`, then tailing. */
  tail(after: number): Response {
    const tail = new SseTail((closed) => this.tails.delete(closed))
    this.tails.add(tail)
    void tail.replay((cursor) => this.ledger.byTopic(this.topic, { after: cursor, limit: 500 }), after)
    return tail.response
  }

  /** Accepts a hibernatable WebSocket for `caller`; it receives nothing until it subscribes. */
  accept(caller: Caller): Response {
    const { 0: client, 1: server } = new WebSocketPair()
    this.ctx.acceptWebSocket(server)
    server.serializeAttachment({ subscribed: false, caller } satisfies SocketAttachment)
    this.sockets = null
    return new Response(null, { status: 101, webSocket: client })
  }

  /** Replays synchronously (no await, so no live event can interleave), then marks the socket live. */
  subscribe(ws: WebSocket, after: number): void {
    let cursor = after
    for (;;) {
      const page = this.ledger.byTopic(this.topic, { after: cursor, limit: 500 })
      for (const envelope of page.items) {
        ws.send(wsFrame({ kind: 'event', envelope }))
        cursor = envelope.seq
      }
      if (page.next === null) break
    }
    ws.send(wsFrame({ kind: 'replay-end', seq: cursor }))
    ws.serializeAttachment({ ...(ws.deserializeAttachment() as SocketAttachment), subscribed: true } satisfies SocketAttachment)
  }

  /** Forget the cached socket list: one was closed or failed. */
  socketsChanged(): void {
    this.sockets = null
  }
}
