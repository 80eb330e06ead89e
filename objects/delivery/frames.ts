/**
 * What subscribers receive, and its two encodings. Durable events carry their
 * sequence (`id:` in SSE) so a reconnect resumes exactly after it; deltas are
 * air and carry none. A `snapshot` stands in for deltas a subscriber missed
 * (it was away, or too slow to take them): whatever the stream's owner folds
 * its air into (a session: the open step's partial output, whole).
 *
 * The shapes of a delta and a snapshot are the stream owner's (`Air`, `Snapshot`); delivery
 * only carries them. A stream without air (an orchestration's) never sends either.
 *
 * @example
 * sseFrame({ kind: 'replay-end', seq: 7 }) // 'event: replay-end\ndata: {"seq":7}\n\n'
 * wsFrame({ kind: 'replay-end', seq: 7 })  // '{"type":"replay-end","seq":7}'
 */
import type { Stored } from '../ledger/envelope.ts'

export type Frame<Air = unknown, Snapshot = unknown> =
  | { kind: 'event'; envelope: Stored }
  | { kind: 'delta'; delta: Air }
  /** What the air carried so far; replaces what the subscriber had of it. */
  | { kind: 'snapshot'; snapshot: Snapshot }
  | { kind: 'replay-end'; seq: number }
  /** WebSocket only: a replay page ended at `seq` and more history waits (send `subscribe` after it). */
  | { kind: 'replay-page'; seq: number }

/** Server-sent events: `id: <seq>` on durable events only. */
export function sseFrame(frame: Frame): string {
  switch (frame.kind) {
    case 'event':
      return `id: ${frame.envelope.seq}\nevent: ${frame.envelope.type}\ndata: ${JSON.stringify(frame.envelope)}\n\n`
    case 'delta':
      return `event: delta\ndata: ${JSON.stringify(frame.delta)}\n\n`
    case 'snapshot':
      return `event: snapshot\ndata: ${JSON.stringify(frame.snapshot)}\n\n`
    case 'replay-end':
    case 'replay-page':
      return `event: ${frame.kind}\ndata: ${JSON.stringify({ seq: frame.seq })}\n\n`
  }
}

/** WebSocket messages: one JSON object per frame. */
export function wsFrame(frame: Frame): string {
  switch (frame.kind) {
    case 'event':
      return JSON.stringify({ type: 'event', seq: frame.envelope.seq, event: frame.envelope })
    case 'delta':
      return JSON.stringify({ type: 'delta', delta: frame.delta })
    case 'snapshot':
      return JSON.stringify({ type: 'snapshot', snapshot: frame.snapshot })
    case 'replay-end':
    case 'replay-page':
      return JSON.stringify({ type: frame.kind, seq: frame.seq })
  }
}
