/**
 * The turn a client shows, folded from the frames it has shown, and the
 * interrupt that names it. An interrupt must name the turn the person saw
 * running: sent bare, it stops whatever runs when it arrives, so a second
 * click (or a retry) 40 ms after the first lands on the queued prompt's turn
 * that started in between. Naming the step makes the server ignore an
 * interrupt for a turn that already ended; the id, kept while the same turn
 * (or the same gap between turns) is shown, makes a second click a retry the
 * server answers with the first answer. It changes whenever a turn opens or
 * closes, so a click on a later turn is never taken for a retry of an earlier one.
 * A double click is one gesture: a target asked for within `REPEAT_MS` of the
 * last one is that one again, even when the screen moved to the next turn
 * between the two clicks: the queued prompt's turn reached a client 41–140 ms
 * after the first interrupt on a 2-core dev machine (measured through
 * test/process/client.test.ts), no longer than a double click lasts.
 */
import { EVENT, isEvent } from '../objects/session/events/events.ts'
import type { SessionFrame, Stored } from './types.ts'

/** What an interrupt names: the turn shown (null: none is shown running) and its idempotency key. */
export interface InterruptTarget {
  /** The running turn shown (a step, or a compaction's id); null when none is shown. */
  step: string | null
  id: string
  reason?: string
}

/** A second click this soon after the first is the same gesture (the usual double-click interval). */
export const REPEAT_MS = 500

/** The turn an event opens, when it opens one: the turn shown becomes it. */
function opens(event: Stored): string | null {
  if (isEvent(event, EVENT.stepStarted)) return event.payload.step
  if (isEvent(event, EVENT.compactionStarted)) return event.payload.id
  return null
}
/** Events after which no turn is running (until the next opener). */
const CLOSERS = new Set<string>([EVENT.stepEnded, EVENT.stepFailed, EVENT.compactionEnded, EVENT.interrupted, EVENT.halted, EVENT.drainEnded])

/**
 * @example
 * const shown = new ShownTurn()
 * for await (const frame of session.events()) { shown.apply(frame); draw(frame) }
 * // the Interrupt button:
 * const reply = await session.interrupt(shown.target())
 */
export class ShownTurn {
  #step: string | null = null
  #id = crypto.randomUUID()
  #last: { target: InterruptTarget; at: number } | null = null

  /** The running turn shown, or null. */
  get step(): string | null {
    return this.#step
  }

  /** Folds one frame the client has shown. */
  apply(frame: SessionFrame): void {
    if (frame.kind !== 'event') return
    const opened = opens(frame.envelope)
    if (typeof opened === 'string') this.#show(opened)
    else if (CLOSERS.has(frame.envelope.type)) this.#show(null)
  }

  /**
   * The interrupt of what is shown now: every call while the same turn is shown gives the same id,
   * and a call within `REPEAT_MS` of the last gives the last target again.
   */
  target(reason?: string, now = Date.now()): InterruptTarget {
    if (this.#last && now - this.#last.at < REPEAT_MS) return this.#last.target
    const target = { step: this.#step, id: this.#id, ...(reason === undefined ? {} : { reason }) }
    this.#last = { target, at: now }
    return target
  }

  #show(step: string | null): void {
    this.#step = step
    this.#id = crypto.randomUUID()
  }
}
