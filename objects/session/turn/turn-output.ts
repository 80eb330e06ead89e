/**
 * The fold of a turn's streamed output: text and reasoning appended in order,
 * tool-call input gathered per call in the order the calls began. The runner
 * folds its provider turn into one (what the turn's durable `text` event will
 * hold, and what the air buffer paces out); the open step folds the deltas it
 * broadcast into one (what a reconnecting client gets as the snapshot).
 */

/** One streamed piece of a turn's output (a `Delta` without its step, or a provider's text/reasoning event). */
export type OutputDelta =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-input-delta'; toolCallId: string; name?: string; delta: string }

/** One call's streamed input so far. */
export interface ToolInput {
  toolCallId: string
  name?: string
  input: string
}

/** Characters one delta adds to a turn's output. */
export function charsOf(delta: OutputDelta): number {
  return delta.type === 'tool-input-delta' ? delta.delta.length : delta.text.length
}

/**
 * @example
 * const out = new TurnOutput()
 * out.add({ type: 'text-delta', text: 'Hel' }); out.add({ type: 'text-delta', text: 'lo' })
 * out.text // 'Hello'
 */
export class TurnOutput {
  text = ''
  reasoning = ''
  /** Input of calls whose `tool.called` has not landed, in the order they began. */
  readonly tools = new Map<string, ToolInput>()

  /** Folds one delta in. */
  add(delta: OutputDelta): void {
    switch (delta.type) {
      case 'text-delta':
        this.text += delta.text
        return
      case 'reasoning-delta':
        this.reasoning += delta.text
        return
      case 'tool-input-delta': {
        const call = this.tools.get(delta.toolCallId) ?? { toolCallId: delta.toolCallId, input: '' }
        if (delta.name !== undefined) call.name = delta.name
        call.input += delta.delta
        this.tools.set(delta.toolCallId, call)
      }
    }
  }

  /** Drops everything folded so far. */
  clear(): void {
    this.text = ''
    this.reasoning = ''
    this.tools.clear()
  }
}
