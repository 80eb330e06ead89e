/**
 * The air of one provider turn: text, reasoning and tool-input deltas gathered
 * and sent at most once per `AIR_INTERVAL_MS` (and whenever a durable event is
 * about to be recorded, so the order subscribers see never changes). Vendors
 * send a network chunk per token or two; subscribers get a steady frame rate,
 * not one message per token.
 */
import type { Delta } from './runner.ts'

export const AIR_INTERVAL_MS = 25

/**
 * @example
 * const air = new AirBuffer(step, (delta) => host.air(delta))
 * air.text('Hel'); air.text('lo'); air.flushIfDue() // one text-delta "Hello" once the interval passed
 */
export class AirBuffer {
  private text = ''
  private reasoning = ''
  private readonly tools = new Map<string, { name?: string; delta: string }>()
  private last = 0

  constructor(
    private readonly step: string,
    private readonly send: (delta: Delta) => void,
    private readonly intervalMs = AIR_INTERVAL_MS,
  ) {}

  addText(text: string): void {
    this.text += text
  }

  addReasoning(text: string): void {
    this.reasoning += text
  }

  addToolInput(toolCallId: string, delta: string, name?: string): void {
    const pending = this.tools.get(toolCallId) ?? (name === undefined ? { delta: '' } : { name, delta: '' })
    pending.delta += delta
    this.tools.set(toolCallId, pending)
  }

  /** Sends what gathered if the interval has passed since the last send. */
  flushIfDue(now = Date.now()): void {
    if (now - this.last >= this.intervalMs) this.flush(now)
  }

  /** Sends everything gathered now. */
  flush(now = Date.now()): void {
    this.last = now
    const step = this.step
    if (this.reasoning) this.send({ type: 'reasoning-delta', step, text: this.reasoning })
    if (this.text) this.send({ type: 'text-delta', step, text: this.text })
    for (const [toolCallId, { name, delta }] of this.tools) {
      this.send(name === undefined ? { type: 'tool-input-delta', step, toolCallId, delta } : { type: 'tool-input-delta', step, toolCallId, name, delta })
    }
    this.text = ''
    this.reasoning = ''
    this.tools.clear()
  }
}
