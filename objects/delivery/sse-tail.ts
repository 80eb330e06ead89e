/**
 * One SSE subscriber, as a cursor into the log. Durable events are never
 * buffered per subscriber: the stream pulls the next page from the ledger
 * after its cursor whenever the reader has room, so a replay of any length
 * and a reader of any speed cost the same bounded memory (one page, plus the
 * stream's high-water mark). `replay-end` marks where the replay caught up
 * with the log; after it the same pulls deliver live events as they are
 * appended. Deltas are air: a tail takes them only while it is caught up and
 * has room. After `replay-end`, and whenever it had to drop a delta, it gets
 * the open step's `snapshot` as soon as it is caught up again, so what its
 * reader renders never has a hole (the snapshot replaces the step's deltas).
 *
 * A tail that is caught up and waiting takes a new event straight from the
 * append that announced it, without reading the log back, when the event's
 * parent is the last one it queued (a streamed address is a chain, so nothing
 * can lie between) and its reader has room. Anything else wakes the pull, which
 * reads from the log as before. This keeps the log reads out of the append's
 * synchronous step, which the commit (and every subscriber's frame) waits for.
 *
 * A reader that has taken nothing for `STALL_MS` while events wait is closed;
 * it resumes with `Last-Event-ID`, losing nothing. A tail lives no longer than
 * the credential it was opened with (`authExp`): past it, the next event, air or
 * heartbeat ends it with one `error` event, TOKEN_EXPIRED.
 */
import type { Stored } from '../ledger/envelope.ts'
import type { Page } from '../ledger/page.ts'
import { type Frame, sseFrame } from './frames.ts'

/** A comment line this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000

/** Bytes a tail may have queued for its reader before it stops reading the log. */
export const TAIL_HIGH_WATER_BYTES = 256 * 1024

/** A reader that takes no bytes for this long while events wait for it is disconnected. */
export const STALL_MS = 60_000

/** Reads the page of durable events after a sequence. */
export type PageReader = (after: number) => Page

const encoder = new TextEncoder()

/**
 * @example
 * const tail = new SseTail((after) => ledger.byTopic(topic, { after, limit: 200 }), lastEventId, (t) => tails.delete(t))
 * const { envelope } = ledger.append(...); tail.notify(envelope)   // after every durable append
 * return tail.response
 */
export class SseTail {
  readonly response: Response
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private cursor: number
  /** The id of the last event queued, when it came from a page or an append (a chain's next event names it as parent). */
  private lastId: string | undefined
  private live = false
  private closed = false
  /** A delta was dropped for this tail: the next chance, it gets a snapshot instead. */
  private behind = false
  private readonly snapshot: () => Frame | null
  /** Resolves a pull that found nothing new: the next append (or a heartbeat) wakes it. */
  private waiting: (() => void) | null = null
  private lastPull = Date.now()
  private readonly timer: ReturnType<typeof setInterval>
  private readonly authExp: number

  constructor(
    private readonly read: PageReader,
    after: number,
    private readonly onClose: (tail: SseTail) => void,
    options: { heartbeatMs?: number; stallMs?: number; /** The open step's partial output (null: none open). */ snapshot?: () => Frame | null; /** When its credential expires (epoch ms). */ authExp?: number | null } = {},
  ) {
    this.cursor = after
    this.authExp = options.authExp ?? Infinity
    this.snapshot = options.snapshot ?? (() => null)
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller
        },
        pull: () => this.pull(),
        cancel: () => this.close(),
      },
      { highWaterMark: TAIL_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
    )
    this.response = new Response(stream, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    })
    const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
    const stallMs = options.stallMs ?? STALL_MS
    this.timer = setInterval(() => this.tick(stallMs), heartbeatMs)
  }

  /** The last durable sequence this tail has queued for its reader. */
  get position(): number {
    return this.cursor
  }

  /**
   * A durable event was appended. A caught-up tail with room queues it as it is; otherwise (or
   * without the event) a waiting pull reads the log.
   */
  notify(envelope?: Stored): void {
    if (this.expired()) return
    if (envelope && this.waiting && this.live && envelope.parent !== null && envelope.parent === this.lastId && (this.controller.desiredSize ?? 0) > 0) {
      this.queue(envelope)
      if (this.behind) this.resync()
      return
    }
    const wake = this.waiting
    this.waiting = null
    wake?.()
  }

  /**
   * An ephemeral frame: sent only to a caught-up tail with room, else dropped (air). A tail that
   * dropped one gets the snapshot (which already holds this frame) in its place once it can.
   */
  air(frame: Frame, lastSeq: number): void {
    if (this.closed || !this.live || this.expired()) return
    if (this.cursor !== lastSeq || (this.controller.desiredSize ?? 0) <= 0) {
      this.behind = true
      return
    }
    if (this.behind) return this.resync()
    this.enqueue(sseFrame(frame))
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.timer)
    this.notify()
    try {
      this.controller.close()
    } catch {
      // already closed or errored by the reader
    }
    this.onClose(this)
  }

  /** Called by the stream whenever its queue is under the high-water mark. */
  private async pull(): Promise<void> {
    this.lastPull = Date.now()
    while (!this.closed) {
      const page = this.read(this.cursor)
      for (const envelope of page.items) this.queue(envelope)
      if (!this.live && page.next === null) {
        this.live = true
        this.enqueue(sseFrame({ kind: 'replay-end', seq: this.cursor }))
        this.resync()
      } else if (this.behind && page.next === null) this.resync()
      if (page.items.length > 0 || !this.live) return
      // Caught up: wait for the next append instead of polling the log.
      await new Promise<void>((resolve) => (this.waiting = resolve))
    }
  }

  private queue(envelope: Stored): void {
    this.enqueue(sseFrame({ kind: 'event', envelope }))
    this.cursor = envelope.seq
    this.lastId = envelope.id
  }

  /** Caught up with the log: the open step's snapshot stands in for every delta missed. */
  private resync(): void {
    this.behind = false
    const snapshot = this.snapshot()
    if (snapshot) this.enqueue(sseFrame(snapshot))
  }

  /** Past its credential's expiry: one `error` event, and the stream ends. */
  private expired(): boolean {
    if (this.closed || Date.now() < this.authExp) return false
    this.enqueue(`event: error\ndata: ${JSON.stringify({ error: { code: 'TOKEN_EXPIRED', message: 'the token this stream was opened with has expired: sign in again' } })}\n\n`)
    this.close()
    return true
  }

  private tick(stallMs: number): void {
    if (this.closed || this.expired()) return
    const starved = this.waiting === null && Date.now() - this.lastPull > stallMs
    if (starved) return this.close()
    if ((this.controller.desiredSize ?? 0) > 0) this.enqueue(': heartbeat\n\n')
  }

  private enqueue(text: string): void {
    if (this.closed) return
    this.controller.enqueue(encoder.encode(text))
  }
}
