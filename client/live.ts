/**
 * A session's transcript as a client shows it, folded from the frames of a
 * stream: durable events, live deltas, and the `snapshot` a stream sends after
 * its replay (and whenever its reader missed deltas). Deltas fill a step's
 * live part; the step's durable events take over from them; a snapshot sets the
 * live part whole. So a client that reconnects mid-step renders exactly what a
 * client that never left renders, with no hole and nothing doubled.
 */
import { EVENT, isSessionEvent } from '../objects/session/events/events.ts'
import type { SessionFrame, Stored } from './types.ts'

/** One provider step as shown: durable parts, plus what only deltas carried so far. */
export interface StepView {
  step: string
  reasoning: string
  liveReasoning: string
  text: string
  liveText: string
  tools: Map<string, { name?: string; input: string | null; liveInput: string; outcome?: string }>
  /** The server kept no snapshot (the step streamed past its cap): live parts wait for durable events. */
  stale: boolean
}

const CLOSERS = new Set<string>([EVENT.stepEnded, EVENT.stepFailed, EVENT.interrupted])

/** The step an event belongs to, when its payload names one. */
function stepOf(payload: unknown): string | null {
  return typeof payload === 'object' && payload !== null && 'step' in payload && typeof payload.step === 'string' ? payload.step : null
}

/**
 * @example
 * const live = new LiveTranscript()
 * for await (const frame of session.events()) { live.apply(frame); draw(live.render()) }
 */
export class LiveTranscript {
  readonly steps = new Map<string, StepView>()

  apply(frame: SessionFrame): void {
    if (frame.kind === 'event') return this.event(frame.envelope)
    if (frame.kind === 'snapshot') {
      const { step: id, text, reasoning, tools, complete } = frame.snapshot
      const step = this.step(id)
      step.stale = !complete
      step.liveText = text
      step.liveReasoning = reasoning
      for (const call of step.tools.values()) call.liveInput = ''
      for (const { toolCallId, name, input } of tools) {
        const call = this.call(step, toolCallId)
        if (name !== undefined) call.name = name
        call.liveInput = input
      }
      return
    }
    if (frame.kind !== 'delta') return
    const delta = frame.delta
    const step = this.step(delta.step)
    if (step.stale) return
    if (delta.type === 'text-delta') step.liveText += delta.text
    else if (delta.type === 'reasoning-delta') step.liveReasoning += delta.text
    else if (delta.type === 'tool-input-delta') {
      const call = this.call(step, delta.toolCallId)
      if (delta.name !== undefined) call.name = delta.name
      call.liveInput += delta.delta
    }
  }

  /**
   * The transcript as text: per step its reasoning, text and tool calls with their outcomes.
   *
   * @example
   * live.render() // "[step 1]\n(thinking) add them\n⚙ calculator({\"expression\":\"2+3\"}) → 5\n"
   */
  render(): string {
    let out = ''
    let n = 0
    for (const step of this.steps.values()) {
      out += `[step ${++n}]\n`
      const reasoning = step.reasoning + step.liveReasoning
      if (reasoning) out += `(thinking) ${reasoning}\n`
      const text = step.text + step.liveText
      if (text) out += `${text}\n`
      for (const call of step.tools.values()) {
        out += `⚙ ${call.name ?? '?'}(${call.input ?? call.liveInput})${call.outcome === undefined ? '' : ` → ${call.outcome}`}\n`
      }
    }
    return out
  }

  private event(event: Stored): void {
    const id = stepOf(event.payload)
    if (id === null || !isSessionEvent(event)) return
    const step = this.step(id)
    switch (event.type) {
      case EVENT.reasoning:
        step.reasoning += event.payload.text
        step.liveReasoning = ''
        return
      case EVENT.text:
        step.text += event.payload.text
        step.liveText = ''
        return
      case EVENT.toolCalled: {
        const call = this.call(step, event.payload.toolCallId)
        call.name = event.payload.name
        call.input = JSON.stringify(event.payload.input)
        call.liveInput = ''
        return
      }
      case EVENT.toolSucceeded:
        this.call(step, event.payload.toolCallId).outcome = event.payload.content
        return
      case EVENT.toolFailed:
        this.call(step, event.payload.toolCallId).outcome = `failed: ${event.payload.error.code}`
        return
      case EVENT.toolCancelled:
        this.call(step, event.payload.toolCallId).outcome = `cancelled: ${event.payload.reason}`
        return
    }
    if (CLOSERS.has(event.type)) {
      step.liveText = ''
      step.liveReasoning = ''
      step.stale = false
      for (const call of step.tools.values()) call.liveInput = ''
    }
  }

  private step(id: string): StepView {
    let step = this.steps.get(id)
    if (!step) this.steps.set(id, (step = { step: id, reasoning: '', liveReasoning: '', text: '', liveText: '', tools: new Map(), stale: false }))
    return step
  }

  private call(step: StepView, toolCallId: string) {
    let call = step.tools.get(toolCallId)
    if (!call) step.tools.set(toolCallId, (call = { input: null, liveInput: '' }))
    return call
  }
}
