/**
 * A stream's answer text, each character once. Text reaches a client three
 * ways: live deltas (air, only while connected), the `snapshot` after a replay
 * (what the open step streamed so far) and the durable `text` event (the whole
 * step's text). Per step this remembers how much was handed out, so a delta,
 * a snapshot and the durable event together yield the text exactly once,
 * whether the client saw the step live, joined it midway, or read it back
 * after it ended.
 */
import { EVENT, isEvent } from '../objects/session/events/events.ts'
import type { SessionFrame } from './types.ts'

/**
 * @example
 * const once = new TextOnce()
 * for await (const frame of session.events()) {
 *   const added = once.next(frame)
 *   if (added) process.stdout.write(added.text)
 * }
 */
export class TextOnce {
  readonly #shown = new Map<string, number>()

  /** The text `frame` adds to what was handed out before, with its step; null when it adds none. */
  next(frame: SessionFrame): { step: string; text: string } | null {
    if (frame.kind === 'delta') {
      if (frame.delta.type !== 'text-delta') return null
      const { step, text } = frame.delta
      this.#shown.set(step, (this.#shown.get(step) ?? 0) + text.length)
      return text ? { step, text } : null
    }
    if (frame.kind === 'snapshot') {
      const { step, text } = frame.snapshot
      const shown = this.#shown.get(step) ?? 0
      if (text.length <= shown) return null
      this.#shown.set(step, text.length)
      return { step, text: text.slice(shown) }
    }
    if (frame.kind !== 'event' || !isEvent(frame.envelope, EVENT.text)) return null
    const { step, text } = frame.envelope.payload
    const rest = text.slice(this.#shown.get(step) ?? 0)
    this.#shown.delete(step)
    return rest ? { step, text: rest } : null
  }
}
