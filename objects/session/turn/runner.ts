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
 * - a step a restart left parked on permission answers is resumed before anything else (resumed-step.ts)
 * - a fault outside any turn's handling closes the open work as recovery does (`failOpenWork`) and halts
 *
 * What one provider turn records is provider-turn.ts; what it needs from the session is runner-host.ts.
 */
import { type Registration, specsOf } from '../../tools/registry.ts'
import { promotion, type PromptedBy } from './authority.ts'
import { type Budget, TokenEstimator } from './budget.ts'
import { type CompactionResult, compactionTurn } from './compaction-turn.ts'
import { SUMMARY_PREFIX } from './compaction.ts'
import { changedSources } from './context-sources.ts'
import { Interrupted } from '../intake/control.ts'
import { keepJson, systemText } from './epoch.ts'
import { EVENT } from '../events/events.ts'
import type { InboxRow, SessionState } from '../events/projection.ts'
import { overflowAdvice } from './overflow-advice.ts'
import { runTurn, startTurn, type TurnEnd } from './provider-turn.ts'
import { failOpenWork, parkedCalls, pendingInterrupt } from './recovery.ts'
import { resumeStep } from './resumed-step.ts'
import type { RunnerHost } from './runner-host.ts'

/** An open loop whose promotion recorded no `by`: joined by a steer, it acts for nobody. */
const NOT_RECORDED: PromptedBy = { principal: null, claims: [] }

/** Provider turns one promotion may use before the loop is halted. */
export const MAX_TURNS = 16

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
      // A step left parked by a restart (its calls wait for a permission answer) ends first.
      const parked = parkedCalls(host.state())
      if (parked.length > 0) await this.resume(host.state().step!, parked)
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
      failOpenWork(host.state(), host.record.bind(host), { step: failure }, {})
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

  /** A step parked across a restart (resumed-step.ts), registered as the running turn so an interrupt can name it. */
  private async resume(step: string, parked: string[]): Promise<void> {
    const controller = new AbortController()
    this.turn = { step, controller }
    try {
      await resumeStep(this.host, step, parked, controller)
    } finally {
      this.turn = null
    }
  }

  /** One provider turn (provider-turn.ts), registered as the running turn so an interrupt can name it. */
  private async step(turn: number): Promise<TurnEnd> {
    const step = crypto.randomUUID()
    const controller = new AbortController()
    this.turn = { step, controller }
    try {
      return await runTurn(startTurn(this.host, { step, turn, controller, tokens: this.tokens, offered: (shown) => this.tools(shown) }))
    } finally {
      this.turn = null
    }
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
