/**
 * What subscribers receive, and its two encodings. Durable events carry their
 * sequence (`id:` in SSE) so a reconnect resumes exactly after it; deltas are
 * air and carry none.
 */
import type { Stored } from '../ledger/envelope.ts'
import type { Delta } from './air.ts'

export type Frame =
  | { kind: 'event'; envelope: Stored }
  | { kind: 'delta'; delta: Delta }
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
    case 'replay-end':
    case 'replay-page':
      return JSON.stringify({ type: frame.kind, seq: frame.seq })
  }
}
