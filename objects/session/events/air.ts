/**
 * The air of one provider turn: text, reasoning and tool-input deltas gathered
 * and sent at most once per `AIR_INTERVAL_MS` (and whenever a durable event is
 * about to be recorded, so the order subscribers see never changes). Vendors
 * send a network chunk per token or two; subscribers get a steady frame rate,
 * not one message per token.
 */
import type { ToolProgress } from '../../tools/tool.ts'

export const AIR_INTERVAL_MS = 25

/** Ephemeral deltas: broadcast live, never stored. */
export type Delta =
  | { type: 'text-delta'; step: string; text: string }
  | { type: 'reasoning-delta'; step: string; text: string }
  | { type: 'tool-input-delta'; step: string; toolCallId: string; name?: string; delta: string }
  /** A running call's progress: an MCP server's notifications (a number, with total and message), or a browser host's JSON object (host-tools.ts). */
  | ({ type: 'tool-progress'; step: string; toolCallId: string } & ToolProgress)

/**
 * @example
 * const air = new AirBuffer(step, (delta) => host.air(delta))
 * turn.text += 'Hel'; turn.text += 'lo'; air.flushIfDue(turn) // one text-delta "Hello" once the interval passed
 */
export class AirBuffer {
  /** How much of the turn's text and reasoning subscribers already have. */
  private sentText = 0
  private sentReasoning = 0
  private readonly tools = new Map<string, { name?: string; delta: string }>()
  private last = 0

  constructor(
    private readonly step: string,
    private readonly send: (delta: Delta) => void,
    private readonly intervalMs = AIR_INTERVAL_MS,
  ) {}

  addToolInput(toolCallId: string, delta: string, name?: string): void {
    const pending = this.tools.get(toolCallId) ?? (name === undefined ? { delta: '' } : { name, delta: '' })
    pending.delta += delta
    this.tools.set(toolCallId, pending)
  }

  /** Sends what gathered if the interval has passed since the last send. */
  flushIfDue(turn: { text: string; reasoning: string }, now = Date.now()): void {
    if (now - this.last >= this.intervalMs) this.flush(turn, now)
  }

  /** Sends everything gathered now: the part of the turn's text and reasoning not sent yet, and tool input. */
  flush(turn: { text: string; reasoning: string }, now = Date.now()): void {
    this.last = now
    const step = this.step
    if (turn.reasoning.length > this.sentReasoning) {
      this.send({ type: 'reasoning-delta', step, text: turn.reasoning.slice(this.sentReasoning) })
      this.sentReasoning = turn.reasoning.length
    }
    if (turn.text.length > this.sentText) {
      this.send({ type: 'text-delta', step, text: turn.text.slice(this.sentText) })
      this.sentText = turn.text.length
    }
    for (const [toolCallId, { name, delta }] of this.tools) {
      this.send(name === undefined ? { type: 'tool-input-delta', step, toolCallId, delta } : { type: 'tool-input-delta', step, toolCallId, name, delta })
    }
    this.tools.clear()
  }
}
