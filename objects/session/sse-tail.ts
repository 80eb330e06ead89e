/**
 * One SSE subscriber: replay of durable events after a sequence, a marker where
 * replay ends, then the live tail. Live events that arrive during the (paged,
 * back-pressured) replay are held and released after it, skipping any the
 * replay already sent, so a reconnect sees no gap and no duplicate.
 */
import type { Page } from '../ledger/page.ts'
import { type Frame, sseFrame } from './frames.ts'

/** A comment line this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000

/**
 * @example
 * const tail = new SseTail((t) => tails.delete(t))
 * void tail.replay((after) => ledger.byTopic(topic, { after, limit: 500 }), lastEventId)
 * return tail.response
 */
export class SseTail {
  readonly response: Response
  private readonly writer: WritableStreamDefaultWriter<string>
  private replaying = true
  private held: Frame[] = []
  private closed = false
  private readonly heartbeat: ReturnType<typeof setInterval>

  constructor(private readonly onClose: (tail: SseTail) => void, heartbeatMs = HEARTBEAT_MS) {
    const encoder = new TextEncoderStream()
    this.writer = encoder.writable.getWriter()
    this.response = new Response(encoder.readable, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    })
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), heartbeatMs)
  }

  /** Delivers a live frame; deltas during replay are air and are dropped. */
  push(frame: Frame): void {
    if (!this.replaying) return this.write(sseFrame(frame))
    if (frame.kind === 'event') this.held.push(frame)
  }

  /** Replays pages after `after`, then switches to live. */
  async replay(read: (after: number) => Page, after: number): Promise<void> {
    let cursor = after
    for (;;) {
      const page = read(cursor)
      for (const envelope of page.items) {
        this.write(sseFrame({ kind: 'event', envelope }))
        cursor = envelope.seq
      }
      if (page.next === null) break
      await this.writer.ready.catch(() => this.close())
      if (this.closed) return
    }
    this.write(sseFrame({ kind: 'replay-end', seq: cursor }))
    for (const frame of this.held) {
      if (frame.kind === 'event' && frame.envelope.seq > cursor) {
        this.write(sseFrame(frame))
        cursor = frame.envelope.seq
      }
    }
    this.held = []
    this.replaying = false
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.heartbeat)
    this.writer.close().catch(() => {})
    this.onClose(this)
  }

  private write(text: string): void {
    if (this.closed) return
    this.writer.write(text).catch(() => this.close())
  }
}
