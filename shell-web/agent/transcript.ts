/**
 * The agent panel's transcript as a fold over a session's frames: durable
 * events become lines once each (by sequence, so a reconnect that replays
 * after the last one seen adds nothing twice and skips nothing), text deltas
 * grow the running step's line until its durable `text` replaces it, and tool
 * progress updates its call's line. A call's lines are keyed by its step and
 * id: a provider's call ids are unique within a step only (the local model
 * numbers them per turn, so an interrupted turn and the next one share them).
 * Bounded: the newest 500 lines are kept.
 *
 * @example
 * const transcript = new Transcript()
 * for await (const frame of socket.frames()) if (transcript.apply(frame)) render(transcript.lines)
 */
import { EVENT, isSessionEvent, type SessionFrame } from '../../client/index.ts'

export interface Line {
  key: string
  kind: 'you' | 'model' | 'tool' | 'result' | 'error' | 'note'
  text: string
  /** Tool progress, shown beside its call. */
  progress?: string
}

const MAX_LINES = 500
const MAX_TEXT = 4_000

export class Transcript {
  lines: Line[] = []
  /** The last durable sequence folded in. */
  last = 0
  #byKey = new Map<string, Line>()
  #notes = 0

  /** Folds one frame in; true when the lines changed. */
  apply(frame: SessionFrame): boolean {
    if (frame.kind === 'delta') return this.#delta(frame.delta as { type: string; step?: string; text?: string; toolCallId?: string; progress?: unknown })
    if (frame.kind !== 'event') return false
    const { seq } = frame.envelope
    if (seq <= this.last) return false
    this.last = seq
    const event = frame.envelope
    if (!isSessionEvent(event)) return false
    switch (event.type) {
      case EVENT.admitted:
        return this.#add({ key: `admitted:${seq}`, kind: 'you', text: event.payload.text })
      case EVENT.text:
        return this.#add({ key: `text:${event.payload.step}`, kind: 'model', text: event.payload.text }, true)
      case EVENT.toolCalled: {
        const p = event.payload
        return this.#add({ key: `tool:${p.step}:${p.toolCallId}`, kind: 'tool', text: `${p.name} ${JSON.stringify(p.input)}` })
      }
      case EVENT.toolSucceeded:
        return this.#add({ key: `result:${event.payload.step}:${event.payload.toolCallId}`, kind: 'result', text: event.payload.content })
      case EVENT.toolFailed: {
        const p = event.payload
        return this.#add({ key: `result:${p.step}:${p.toolCallId}`, kind: 'error', text: `${p.error.code}: ${p.error.message}` })
      }
      case EVENT.toolCancelled:
        return this.#add({ key: `result:${event.payload.step}:${event.payload.toolCallId}`, kind: 'note', text: `cancelled: ${event.payload.reason}` })
      case EVENT.stepFailed:
        return this.#add({ key: `failed:${seq}`, kind: 'error', text: `${event.payload.error.code}: ${event.payload.error.message}` })
      case EVENT.interrupted:
        return this.#add({ key: `interrupted:${seq}`, kind: 'note', text: `interrupted (${event.payload.reason})` })
      default:
        return false
    }
  }

  /** A line of the panel's own (not from the session), e.g. that an interrupt came after its turn ended. */
  note(text: string): void {
    this.#add({ key: `note:${++this.#notes}`, kind: 'note', text })
  }

  #delta(delta: { type: string; step?: string; text?: string; toolCallId?: string; progress?: unknown }): boolean {
    if (delta.type === 'text-delta' && delta.step) {
      const line = this.#byKey.get(`text:${delta.step}`)
      if (line) return (line.text = (line.text + (delta.text ?? '')).slice(0, MAX_TEXT)), true
      return this.#add({ key: `text:${delta.step}`, kind: 'model', text: delta.text ?? '' })
    }
    if (delta.type === 'tool-progress' && delta.toolCallId) {
      const line = this.#byKey.get(`tool:${delta.step}:${delta.toolCallId}`)
      if (!line) return false
      line.progress = JSON.stringify(delta.progress).slice(0, 200)
      return true
    }
    return false
  }

  /** Adds a line, or (`replace`) sets the text of the line with its key. */
  #add(line: Line, replace = false): boolean {
    line.text = line.text.slice(0, MAX_TEXT)
    const existing = this.#byKey.get(line.key)
    if (existing) {
      if (replace) existing.text = line.text
      return replace
    }
    this.lines.push(line)
    this.#byKey.set(line.key, line)
    for (const gone of this.lines.splice(0, Math.max(0, this.lines.length - MAX_LINES))) this.#byKey.delete(gone.key)
    return true
  }
}
