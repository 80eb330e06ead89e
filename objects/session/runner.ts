/**
 * The serialized runner (spec §3.1–3.5). One drain at a time per session:
 * promote admitted input at safe boundaries, run one explicit provider turn
 * after another, settle tool calls eagerly, and stop at idle.
 *
 * - steer: promoted at the next safe boundary, even mid-loop
 * - queue: waits for idle, then exactly one is promoted and the loop re-evaluates
 * - a promotion resets the provider-turn allowance; running out is an explained `halted`
 * - interruption aborts the turn: open calls are cancelled (never a result)
 */
import { NeuronError } from '../errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import type { FinishReason, LlmEvent, LlmMessage, LlmRequest, Usage } from '../llm/types.ts'
import { type Registration, specsOf, type ToolRegistry } from '../tools/registry.ts'
import { type Settlement, settle } from '../tools/settle.ts'
import { AirBuffer } from './air.ts'
import { EVENT, type EventPayloads, type EventType } from './events.ts'
import type { InboxRow, SessionState } from './projection.ts'
import { ReasoningBlocks } from './reasoning.ts'

/** Provider turns one promotion may use before the loop is halted. */
export const MAX_TURNS = 16

/** Ephemeral deltas: broadcast live, never stored. */
export type Delta =
  | { type: 'text-delta'; step: string; text: string }
  | { type: 'reasoning-delta'; step: string; text: string }
  | { type: 'tool-input-delta'; step: string; toolCallId: string; name?: string; delta: string }

/** What the runner needs from the object it runs in. */
export interface RunnerHost {
  readonly sessionId: string
  state(): SessionState
  record<T extends EventType>(type: T, payload: EventPayloads[T]): Stored
  air(delta: Delta): void
  history(): LlmMessage[]
  /** One provider turn, in batches of events (one per network chunk). */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent[]>
  cost(provider: string, model: string, usage: Usage): number | null
  keepArtifact(text: string): string
  readonly tools: ToolRegistry
  readonly maxTurns?: number
}

class Interrupted extends Error {
  override name = 'Interrupted'
}

/**
 * The serialized drain of one session, over the host it runs in.
 *
 * @example
 * const runner = new Runner(host)
 * void runner.wake()        // after an admission
 * runner.interrupt()        // stops the running turn; false when idle
 */
export class Runner {
  private draining: Promise<void> | null = null
  private turn: { step: string; controller: AbortController } | null = null

  constructor(private readonly host: RunnerHost) {}

  /** Starts a drain unless one is running; resolves when the session is idle. */
  wake(): Promise<void> {
    this.draining ??= this.drain().finally(() => {
      this.draining = null
    })
    return this.draining
  }

  /** Aborts the running provider turn. `false` when nothing was running (a no-op). */
  interrupt(reason = 'interrupted by the user'): boolean {
    if (!this.turn) return false
    this.turn.controller.abort(new Interrupted(reason))
    return true
  }

  get busy(): boolean {
    return this.draining !== null
  }

  private async drain(): Promise<void> {
    const host = this.host
    const run = crypto.randomUUID()
    host.record(EVENT.drainStarted, { run })
    let turns = 0
    try {
      for (;;) {
        const state = host.state()
        const batch = promotable(state)
        if (batch.length > 0) {
          host.record(EVENT.prompted, { messageIds: batch.map((row) => row.messageId) })
          turns = 0
        } else if (!state.loopOpen) {
          return
        }
        if (turns >= (host.maxTurns ?? MAX_TURNS)) {
          host.record(EVENT.halted, { reason: 'turn-limit', limit: host.maxTurns ?? MAX_TURNS })
          continue
        }
        turns++
        await this.step(turns)
      }
    } catch (error) {
      // A fault outside any turn's own handling (e.g. storage): close what is open, durably,
      // and halt, so the loop is not retried forever and nothing stays "running".
      console.error('runner: drain failed', error)
      const failure = { code: 'RUNNER_FAILED', message: error instanceof Error ? error.message : String(error) }
      const state = host.state()
      for (const toolCallId of Object.keys(state.running)) host.record(EVENT.toolFailed, { step: state.step ?? 'none', toolCallId, error: failure })
      if (state.step !== null) host.record(EVENT.stepFailed, { step: state.step, error: failure })
      host.record(EVENT.halted, { reason: 'step-failed', limit: null })
    } finally {
      host.record(EVENT.drainEnded, { run, reason: 'idle' })
    }
  }

  /** One provider turn: stream, start calls eagerly, settle all, record outcomes in call order. */
  private async step(turn: number): Promise<void> {
    const host = this.host
    const state = host.state()
    const step = crypto.randomUUID()
    const controller = new AbortController()
    this.turn = { step, controller }
    host.record(EVENT.stepStarted, { step, turn, provider: state.provider, model: state.model })
    const shown = host.tools.snapshot()
    const request: LlmRequest = { provider: state.provider, model: state.model, messages: host.history(), tools: specsOf(shown) }
    if (state.system) request.system = state.system

    // The turn's output so far; the air buffer sends what subscribers have not seen yet.
    const out = { text: '', reasoning: '' }
    const reasoning = new ReasoningBlocks()
    let finish: FinishReason = 'other'
    let usage: Usage | null = null
    let outputRecorded = false
    const calls: { id: string; settled: Promise<Settlement | 'cancelled'>; outcome?: Settlement }[] = []
    const air = new AirBuffer(step, (delta) => host.air(delta))
    try {
      for await (const batch of host.stream(request, controller.signal)) {
        for (const event of batch) {
          switch (event.type) {
            case 'text-delta':
              out.text += event.text
              break
            case 'reasoning-delta':
              out.reasoning += event.text
              reasoning.text(event.text)
              break
            case 'reasoning-signature':
              reasoning.sign(event.signature)
              break
            case 'reasoning-redacted':
              reasoning.redacted(event.data)
              break
            case 'tool-input-start':
              air.addToolInput(event.id, '', event.name)
              break
            case 'tool-input-delta':
              air.addToolInput(event.id, event.delta)
              break
            case 'tool-call': {
              // Durable before any side effect; then the call starts at once.
              air.flush(out)
              host.record(EVENT.toolCalled, { step, toolCallId: event.id, name: event.name, input: event.input })
              const call: (typeof calls)[number] = { id: event.id, settled: this.execute(event, shown.get(event.name), step, controller.signal) }
              call.settled.then((outcome) => outcome !== 'cancelled' && (call.outcome = outcome), () => {})
              calls.push(call)
              break
            }
            case 'usage': {
              const { type: _type, ...counts } = event
              usage = counts
              break
            }
            case 'retry':
              air.flush(out)
              host.record(EVENT.retried, { step, attempt: event.attempt, delayMs: event.delayMs, status: event.status, message: event.message })
              break
            case 'finish':
              finish = event.reason
              break
          }
        }
        air.flushIfDue(out)
      }
      air.flush(out)
      this.recordOutput(step, reasoning, out.text)
      outputRecorded = true
      await Promise.all(calls.map((call) => call.settled))
      controller.signal.throwIfAborted()
      for (const call of calls) this.recordOutcome(step, call.id, call.outcome!)
      const cost = usage ? host.cost(state.provider, state.model, usage) : null
      host.record(EVENT.stepEnded, { step, finish, usage, cost })
    } catch (error) {
      air.flush(out)
      if (!outputRecorded) this.recordOutput(step, reasoning, out.text)
      if (controller.signal.aborted && controller.signal.reason instanceof Interrupted) {
        this.closeCalls(step, calls, 'interrupted')
        host.record(EVENT.interrupted, { step, reason: controller.signal.reason.message })
        return
      }
      const failure = error instanceof NeuronError ? { code: error.code, message: error.message } : { code: 'STEP_FAILED', message: String(error) }
      controller.abort(error)
      await Promise.allSettled(calls.map((call) => call.settled))
      this.closeCalls(step, calls, 'step failed')
      host.record(EVENT.stepFailed, { step, error: failure })
      host.record(EVENT.halted, { reason: 'step-failed', limit: null })
    } finally {
      this.turn = null
    }
  }

  /** Settles one call. Never rejects: an abort is `cancelled`, anything else a failed outcome. */
  private execute(
    call: { id: string; name: string; input: Json },
    shown: Registration | undefined,
    step: string,
    signal: AbortSignal,
  ): Promise<Settlement | 'cancelled'> {
    const context = { sessionId: this.host.sessionId, assistantMessageId: step, toolCallId: call.id, signal }
    return settle(call, shown, this.host.tools, context).catch((error: unknown): Settlement | 'cancelled' => {
      if (signal.aborted) return 'cancelled'
      return { ok: false, error: { code: 'TOOL_FAILED', message: error instanceof Error ? error.message : String(error) } }
    })
  }

  /** Calls that finished keep their result; the rest are cancelled, which is never a result. */
  private closeCalls(step: string, calls: { id: string; outcome?: Settlement }[], reason: string): void {
    for (const call of calls) {
      if (call.outcome) this.recordOutcome(step, call.id, call.outcome)
      else this.host.record(EVENT.toolCancelled, { step, toolCallId: call.id, reason })
    }
  }

  private recordOutput(step: string, reasoning: ReasoningBlocks, text: string): void {
    for (const block of reasoning.list()) {
      if (block.type === 'redacted-reasoning') this.host.record(EVENT.reasoning, { step, text: '', redacted: block.data })
      else if (block.signature !== undefined) this.host.record(EVENT.reasoning, { step, text: block.text, signature: block.signature })
      else if (block.text) this.host.record(EVENT.reasoning, { step, text: block.text })
    }
    if (text) this.host.record(EVENT.text, { step, text })
  }

  private recordOutcome(step: string, toolCallId: string, outcome: Settlement): void {
    if (!outcome.ok) {
      this.host.record(EVENT.toolFailed, { step, toolCallId, error: outcome.error })
      return
    }
    const payload: EventPayloads[typeof EVENT.toolSucceeded] = { step, toolCallId, content: outcome.content, truncated: outcome.truncated }
    if (outcome.full !== null) payload.artifact = this.host.keepArtifact(outcome.full)
    this.host.record(EVENT.toolSucceeded, payload)
  }
}

/** Steer rows go at any safe boundary; a queue row only when the loop is idle, one at a time. */
function promotable(state: SessionState): InboxRow[] {
  const steers = state.pending.filter((row) => row.delivery === 'steer')
  if (steers.length > 0) return steers
  if (state.loopOpen) return []
  const queued = state.pending.find((row) => row.delivery === 'queue')
  return queued ? [queued] : []
}
