/**
 * The serialized runner (spec §3.1–3.5). One drain at a time per session:
 * promote admitted input at safe boundaries, run one explicit provider turn
 * after another, settle tool calls eagerly, and stop at idle.
 *
 * - steer: promoted at the next safe boundary, even mid-loop
 * - queue: waits for idle, then exactly one is promoted and the loop re-evaluates
 * - a promotion resets the provider-turn allowance; running out is an explained `halted`
 * - a promotion records who the loop acts for (`prompted.by`); each turn's tools get that authority
 * - interruption aborts the turn: open calls are cancelled (never a result)
 * - before each turn the context budget is checked; over it, the transcript is compacted first
 * - a turn the provider refuses as too long gets exactly one rebuild (compact, retry), then the
 *   loop halts with `CONTEXT_OVERFLOW`: never a loop
 */
import { NeuronError } from '../core/errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import { isContextOverflow } from '../llm/overflow.ts'
import type { FinishReason, LlmEvent, LlmMessage, LlmRequest, Usage } from '../llm/types.ts'
import { type Registration, specsOf, type ToolRegistry } from '../tools/registry.ts'
import { type Settlement, settle } from '../tools/settle.ts'
import type { ToolAuthority, ToolContext } from '../tools/tool.ts'
import { AirBuffer, type Delta } from './air.ts'
import { promotion, type PromptedBy } from './authority.ts'
import { type Budget, TokenEstimator } from './budget.ts'
import { type CompactionResult, compactionTurn } from './compaction-turn.ts'
import { SUMMARY_PREFIX } from './compaction.ts'
import { changedSources, type SourceValue } from './context-sources.ts'
import { Interrupted } from './control.ts'
import { keepJson, systemText } from './epoch.ts'
import { EVENT, type EventPayloads, type EventType } from './events.ts'
import type { InboxRow, SessionState } from './projection.ts'
import { overflowAdvice } from './overflow-advice.ts'
import { pendingInterrupt } from './recovery.ts'
import { ReasoningBlocks } from './reasoning.ts'

/** An open loop whose promotion recorded no `by`: joined by a steer, it acts for nobody. */
const NOT_RECORDED: PromptedBy = { principal: null, claims: [] }

/** Provider turns one promotion may use before the loop is halted. */
export const MAX_TURNS = 16


/** What the runner needs from the object it runs in. */
export interface RunnerHost {
  readonly sessionId: string
  state(): SessionState
  record<T extends EventType>(type: T, payload: EventPayloads[T]): Stored
  air(delta: Delta): void
  history(): LlmMessage[]
  /** Serialized characters of what the last `history()` returned. */
  historyChars(): number
  /** The current epoch's system text and the sources the model knows (as of the last `history()`). */
  context(): { system: string | null; sources: Record<string, SourceValue> }
  /** The context sources' values now; never waits (see context-sources.ts). */
  sources(): Record<string, SourceValue>
  /** The context budget of the session's model; null when the catalog does not know its window. */
  budget(): Budget | null
  /** One provider turn, in batches of events (one per network chunk). */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent[]>
  cost(provider: string, model: string, usage: Usage): number | null
  keepArtifact(text: string, kind?: string): string
  /** Who an admitted prompt came from: its admission's gate headers (authority.ts). */
  admittedBy(row: InboxRow): PromptedBy
  /** What the tools of a turn may reach, given who its loop's prompts came from (authority.ts). */
  toolAuthority(by: PromptedBy | null): ToolAuthority
  readonly tools: ToolRegistry
  readonly maxTurns?: number
}


/**
 * The serialized drain of one session, over the host it runs in.
 *
 * @example
 * const runner = new Runner(host)
 * void runner.wake()        // after an admission
 * runner.interrupt(step, 'req-1')   // stops that turn if it is the one running; false otherwise
 */
export class Runner {
  private draining: Promise<void> | null = null
  private turn: { step: string; controller: AbortController } | null = null
  private readonly tokens = new TokenEstimator()
  /** The offered tool specs' size and artifact, measured and stored again only when the registrations shown change. */
  private offered: { shown: Registration[]; chars: number; ref: string } | null = null

  constructor(private readonly host: RunnerHost) {}

  /** Starts a drain unless one is running; resolves when the session is idle. */
  wake(): Promise<void> {
    this.draining ??= this.drain().finally(() => {
      this.draining = null
    })
    return this.draining
  }

  /**
   * Aborts the running provider turn (or compaction) if it is `step`: an interrupt never reaches a
   * turn other than the one it names. `false` when that turn is not running (a no-op).
   */
  interrupt(step: string, request?: string, reason = 'interrupted by the user'): boolean {
    if (this.turn?.step !== step || this.turn.controller.signal.aborted) return false
    this.turn.controller.abort(new Interrupted(reason, request))
    return true
  }

  get busy(): boolean {
    return this.draining !== null
  }

  private async drain(): Promise<void> {
    const host = this.host
    const run = crypto.randomUUID()
    host.record(EVENT.drainStarted, { run })
    // The budget's anchor survives restarts: the last counted turn of this epoch is in the log.
    const anchor = host.state().anchor
    if (anchor) this.tokens.observe(anchor.chars, { inputTokens: anchor.tokens, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 })
    let turns = 0
    try {
      for (;;) {
        const state = host.state()
        const control = pendingInterrupt(state)
        if (control && control.step === null) {
          // Asked for between turns: honoured here, at the boundary, before anything new starts.
          host.record(EVENT.interrupted, { step: null, reason: 'interrupted between turns', request: control.id })
          continue
        }
        const batch = promotable(state)
        if (batch.length === 0 && !state.loopOpen) return
        // A safe boundary: context changes are told before the prompts promoted here.
        this.reconcileContext()
        if (batch.length > 0) {
          // Who the loop acts for: these prompts, and (a steer joining a running loop) those it already runs on.
          const by = promotion(state.loopOpen ? (state.by ?? NOT_RECORDED) : null, batch.map((row) => host.admittedBy(row)))
          host.record(EVENT.prompted, { messageIds: batch.map((row) => row.messageId), by })
          turns = 0
        }
        if (turns >= (host.maxTurns ?? MAX_TURNS)) {
          host.record(EVENT.halted, { reason: 'turn-limit', limit: host.maxTurns ?? MAX_TURNS })
          continue
        }
        turns++
        await this.turnWithinBudget(turns)
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

  /**
   * One provider turn within the context budget: over it, compact first. A turn refused as too
   * long gets one rebuild (a compaction, then the turn again); a second refusal, or a rebuild that
   * cannot complete, halts the loop with `CONTEXT_OVERFLOW`.
   */
  private async turnWithinBudget(turn: number): Promise<void> {
    const host = this.host
    const budget = host.budget()
    if (budget) {
      const estimate = this.tokens.estimate(this.requestChars())
      if (estimate > budget.input && (await this.compact('budget', estimate, budget)).outcome === 'interrupted') return
    }
    if ((await this.step(turn)) !== 'overflow') return
    const rebuilt = await this.compact('overflow', this.tokens.estimate(this.requestChars()), budget)
    if (rebuilt.outcome === 'interrupted') return
    if (rebuilt.outcome === 'completed' && (await this.step(turn)) !== 'overflow') return
    host.record(EVENT.halted, { reason: 'context-overflow', limit: null, error: { code: 'CONTEXT_OVERFLOW', message: this.overflowAdvice(budget, rebuilt) } })
  }

  /** What the halt says: the refused request's parts as measured now, and how its rebuild went. */
  private overflowAdvice(budget: Budget | null, rebuilt: CompactionResult): string {
    const state = this.host.state()
    const messages = this.host.history()
    const last = messages.at(-1)
    // The last user message is the prompt unless the compaction summarised it: then it is the summary.
    const prompt = last?.role === 'user' && !last.content.startsWith(SUMMARY_PREFIX) ? JSON.stringify(last).length : 0
    const system = this.host.context().system?.length ?? 0
    const tokens = (chars: number) => this.tokens.tokensOf(chars)
    return overflowAdvice({
      model: `${state.provider}/${state.model}`,
      window: budget?.window ?? null,
      prompt: tokens(prompt),
      history: tokens(this.host.historyChars() - prompt),
      system: tokens(system),
      tools: tokens(this.tools(this.host.tools.snapshot()).chars),
      ...(rebuilt.error ? { compactionError: rebuilt.error } : {}),
    })
  }

  /**
   * A safe boundary between provider turns: the first turn starts the first context epoch; later,
   * sources that changed reach the model as one durable `context.changed` message. Never inside a turn.
   */
  private reconcileContext(): void {
    const host = this.host
    const state = host.state()
    const fresh = host.sources()
    if (!state.epoch) {
      const baseline = keepJson(host.keepArtifact, { system: systemText(state.system, fresh), sources: fresh, messages: [] })
      host.record(EVENT.epochStarted, { baseline, after: 0, reason: 'start' })
      return
    }
    host.history()
    const values = changedSources(host.context().sources, fresh)
    if (Object.keys(values).length > 0) host.record(EVENT.contextChanged, { values })
  }

  /** Characters of the next request: the epoch's messages, plus the system text and tool specs. */
  private requestChars(): number {
    this.host.history()
    return this.host.historyChars() + this.tools(this.host.tools.snapshot()).chars + (this.host.context().system?.length ?? 0)
  }

  /** The offered specs' size and artifact ref, for the tool set `shown`. */
  private tools(shown: Map<string, Registration>): { chars: number; ref: string } {
    // By registration, not by name: a layered tool registered again under the same name (an MCP
    // server's changed schema) is a different offer and is recorded again.
    const registrations = [...shown.values()]
    const last = this.offered
    if (last && last.shown.length === registrations.length && registrations.every((registration, i) => last.shown[i] === registration)) return last
    const json = JSON.stringify(specsOf(shown))
    this.offered = { shown: registrations, chars: json.length, ref: this.host.keepArtifact(json, 'application/json') }
    return this.offered
  }

  /** A compaction turn (see compaction-turn.ts), registered as the running turn so an interrupt can name it. */
  private async compact(reason: 'budget' | 'overflow', estimate: number, budget: Budget | null): Promise<CompactionResult> {
    const id = crypto.randomUUID()
    const controller = new AbortController()
    this.turn = { step: id, controller }
    try {
      const result = await compactionTurn(this.host, { id, reason, estimate, budget, tokens: this.tokens, signal: controller.signal })
      if (result.outcome === 'completed') this.tokens.rebase()
      return result
    } finally {
      this.turn = null
    }
  }

  /**
   * One provider turn: stream, start calls eagerly, settle all, record outcomes in call order.
   * `overflow` when the provider refused the request as longer than the model's window.
   */
  private async step(turn: number): Promise<'done' | 'overflow'> {
    const host = this.host
    const state = host.state()
    const step = crypto.randomUUID()
    const controller = new AbortController()
    this.turn = { step, controller }
    const shown = host.tools.snapshot()
    const offered = this.tools(shown)
    const request: LlmRequest = { provider: state.provider, model: state.model, messages: host.history(), tools: specsOf(shown) }
    const system = host.context().system
    if (system) request.system = system
    const sent = host.historyChars() + offered.chars + (system?.length ?? 0)
    const authority = host.toolAuthority(state.by)
    host.record(EVENT.stepStarted, { step, turn, provider: state.provider, model: state.model, tools: offered.ref, chars: sent })

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
              const call: (typeof calls)[number] = { id: event.id, settled: this.execute(event, shown.get(event.name), step, authority, controller.signal) }
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
      this.tokens.observe(sent, usage)
      host.record(EVENT.stepEnded, { step, finish, usage, cost })
      return 'done'
    } catch (error) {
      air.flush(out)
      if (!outputRecorded) this.recordOutput(step, reasoning, out.text)
      if (controller.signal.aborted && controller.signal.reason instanceof Interrupted) {
        this.closeCalls(step, calls, 'interrupted')
        const { message, request } = controller.signal.reason
        host.record(EVENT.interrupted, request === undefined ? { step, reason: message } : { step, reason: message, request })
        return 'done'
      }
      const overflow = isContextOverflow(error)
      const failure = overflow
        ? { code: 'CONTEXT_OVERFLOW', message: (error as Error).message }
        : error instanceof NeuronError
          ? { code: error.code, message: error.message }
          : { code: 'STEP_FAILED', message: String(error) }
      controller.abort(error)
      await Promise.allSettled(calls.map((call) => call.settled))
      this.closeCalls(step, calls, 'step failed')
      host.record(EVENT.stepFailed, { step, error: failure })
      if (overflow) return 'overflow'
      host.record(EVENT.halted, { reason: 'step-failed', limit: null })
      return 'done'
    } finally {
      this.turn = null
    }
  }

  /** Settles one call. Never rejects: an abort is `cancelled`, anything else a failed outcome. */
  private execute(
    call: { id: string; name: string; input: Json },
    shown: Registration | undefined,
    step: string,
    authority: ToolAuthority,
    signal: AbortSignal,
  ): Promise<Settlement | 'cancelled'> {
    const context: ToolContext = {
      sessionId: this.host.sessionId,
      authority,
      assistantMessageId: step,
      toolCallId: call.id,
      signal,
      progress: (update) => this.host.air({ type: 'tool-progress', step, toolCallId: call.id, ...update }),
    }
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
