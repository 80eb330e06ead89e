/**
 * One admitted prompt, as `SessionHandle.prompt` answers it: the receipt, and
 * the turn that answers it to follow. `stream()` reads the session from the
 * prompt's admission (a replay, so a turn that already ended is read back
 * whole, and one still running is joined with the snapshot of what it streamed
 * so far) and ends when the loop that answered the prompt closes; `text()` is
 * that turn's answer text, each character once (text-once.ts). Text deltas are
 * live-only: subscribing after the prompt returned would miss a fast turn's,
 * which is why following starts from the admission, not from "now".
 */
import type { SessionHandle } from './session.ts'
import { TextOnce } from './text-once.ts'
import { EVENT, isEvent } from '../objects/session/events/events.ts'
import type { PromptResult, Receipt, SessionFrame, Stored } from './types.ts'

/** Whether `event` closes the loop that was running. */
function closesLoop(event: Stored): boolean {
  if (isEvent(event, EVENT.stepEnded)) return event.payload.finish !== 'tool-calls'
  return event.type === EVENT.interrupted || event.type === EVENT.halted || event.type === EVENT.drainEnded
}

/**
 * @example
 * const turn = await session.prompt('what is 6*7?')
 * for await (const text of turn.text()) process.stdout.write(text)
 */
export class Turn implements PromptResult {
  readonly session: SessionHandle
  readonly receipt: Receipt
  /** True when the server had already admitted this message id (a retry). */
  readonly duplicate: boolean

  constructor(session: SessionHandle, receipt: Receipt, duplicate: boolean) {
    this.session = session
    this.receipt = receipt
    this.duplicate = duplicate
  }

  /**
   * The session's frames from this prompt's admission (its `admitted` event first) until the
   * loop that answered it closes: its last step ended, it was interrupted or halted, or the drain
   * ended. Frames of earlier prompts' turns that ran in between are included; `promoted` tells
   * which are this one's. Reconnects by itself like `events()`.
   */
  async *stream(options: { signal?: AbortSignal } = {}): AsyncGenerator<SessionFrame & { promoted: boolean }> {
    const stop = new AbortController()
    const abort = () => stop.abort()
    options.signal?.addEventListener('abort', abort, { once: true })
    let promoted = false
    try {
      for await (const frame of this.session.events({ after: this.receipt.sequence - 1, signal: stop.signal })) {
        if (frame.kind === 'event' && isEvent(frame.envelope, EVENT.prompted)) {
          promoted ||= frame.envelope.payload.messageIds.includes(this.receipt.id)
        }
        yield { ...frame, promoted }
        if (promoted && frame.kind === 'event' && closesLoop(frame.envelope)) return
      }
    } finally {
      options.signal?.removeEventListener('abort', abort)
      stop.abort()
    }
  }

  /** The answer's text as it streams (or as it was stored), each character once: only this prompt's turn. */
  async *text(options: { signal?: AbortSignal } = {}): AsyncGenerator<string> {
    const once = new TextOnce()
    const ours = new Set<string>()
    for await (const frame of this.stream(options)) {
      if (frame.promoted && frame.kind === 'event' && isEvent(frame.envelope, EVENT.stepStarted)) ours.add(frame.envelope.payload.step)
      const added = once.next(frame)
      if (added && ours.has(added.step)) yield added.text
    }
  }
}
