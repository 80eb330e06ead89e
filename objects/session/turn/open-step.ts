/**
 * What the open provider step has streamed that no durable event holds yet:
 * its partial text, reasoning and tool-call input. Deltas are air, so a client
 * that reconnects mid-step replays the stored events and would miss them; it
 * gets this state instead, as one `snapshot` frame right after the replay, and
 * then renders exactly what a client that never left renders.
 *
 * A fold over the frames the session broadcasts (the runner's turn-output
 * fold, turn-output.ts), kept in memory only: deltas add to it; the step's
 * durable events take their part out (`text` the text, `reasoning` the
 * reasoning, `tool.called` that call's input); the step's end drops it. It holds one step, never history, and at most `OPEN_STEP_MAX_CHARS`:
 * past that it keeps nothing and its snapshot says `complete: false` (the
 * durable events will carry the step's output).
 */
import type { Frame } from '../../delivery/frames.ts'
import type { Stored } from '../../ledger/envelope.ts'
import type { Delta } from '../events/air.ts'
import { EVENT } from '../events/events.ts'
import { charsOf, type ToolInput, TurnOutput } from './turn-output.ts'

/** Characters of partial output one open step keeps (text + reasoning + tool input), ~2 MiB of memory. */
export const OPEN_STEP_MAX_CHARS = 1 << 20

/** The open step's partial output, as a `snapshot` frame carries it. */
export interface StepSnapshot {
  step: string
  /** Streamed text the step's durable `text` event does not hold yet. */
  text: string
  /** Streamed reasoning the step's durable `reasoning` events do not hold yet. */
  reasoning: string
  /** Tool-call input streamed for calls whose `tool.called` has not landed, in the order they began. */
  tools: ToolInput[]
  /** False when the step streamed more than the cap: the partial output is left to its durable events. */
  complete: boolean
}

/** Events that close the open step (its durable outcome has landed). */
const CLOSERS = new Set<string>([EVENT.stepEnded, EVENT.stepFailed, EVENT.interrupted])

/** What a session's subscribers receive: its events, its deltas, and the open step as the snapshot. */
export type SessionFrame = Frame<Delta, StepSnapshot>

/**
 * @example
 * const open = new OpenStep()
 * open.delta({ type: 'text-delta', step: 's1', text: 'Hel' })
 * open.snapshot() // { step: 's1', text: 'Hel', reasoning: '', tools: [], complete: true }
 */
export class OpenStep {
  private current: { step: string; complete: boolean } | null = null
  private readonly output = new TurnOutput()
  private chars = 0

  constructor(private readonly maxChars = OPEN_STEP_MAX_CHARS) {}

  /** Adds a streamed delta to its step (a delta of another step opens that one). */
  delta(delta: Delta): void {
    // Progress is how far a call got right now, not text the step will hold: a reconnect waits for the next one.
    if (delta.type === 'tool-progress') return
    const open = this.current?.step === delta.step ? this.current : this.open(delta.step)
    if (!open.complete) return
    const added = charsOf(delta)
    if (this.chars + added > this.maxChars) return this.overflow(open)
    this.chars += added
    this.output.add(delta)
  }

  /** Takes out what a durable event of the open step now holds. */
  event(envelope: Stored): void {
    const open = this.current
    const output = this.output
    const payload = envelope.payload as { step?: string | null; toolCallId?: string } | null
    if (envelope.type === EVENT.stepStarted) return void this.open(String(payload?.step))
    if (!open || payload?.step !== open.step) return
    if (CLOSERS.has(envelope.type)) return this.close()
    if (envelope.type === EVENT.text) {
      this.chars -= output.text.length
      output.text = ''
    } else if (envelope.type === EVENT.reasoning) {
      this.chars -= output.reasoning.length
      output.reasoning = ''
    } else if (envelope.type === EVENT.toolCalled && payload.toolCallId !== undefined) {
      this.chars -= output.tools.get(payload.toolCallId)?.input.length ?? 0
      output.tools.delete(payload.toolCallId)
    }
  }

  /** The open step's partial output, or null when no step is open. */
  snapshot(): StepSnapshot | null {
    const open = this.current
    if (!open) return null
    const { text, reasoning, tools } = this.output
    return { step: open.step, text, reasoning, tools: [...tools.values()].map((call) => ({ ...call })), complete: open.complete }
  }

  private open(step: string): { step: string; complete: boolean } {
    this.close()
    this.current = { step, complete: true }
    return this.current
  }

  private overflow(open: { complete: boolean }): void {
    open.complete = false
    this.output.clear()
    this.chars = 0
  }

  private close(): void {
    this.current = null
    this.output.clear()
    this.chars = 0
  }
}
