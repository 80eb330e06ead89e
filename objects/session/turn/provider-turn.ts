/**
 * One provider turn of the runner (spec §3.3): stream, start tool calls eagerly
 * as they arrive, settle them all, record outcomes in call order. Everything
 * the turn holds while it runs is one explicit `TurnContext`; each streamed
 * event goes through one named handler (`onEvent`); the turn's end and its
 * failure are small helpers over the same context. The runner owns when a
 * turn runs and how it is interrupted; this file owns what one turn records.
 *
 * - the turn's output is folded as it streams (turn-output.ts) and paced to subscribers as air
 * - a tool call is durable (`tool.called`) before it starts; then it runs at once
 * - interruption cancels the calls still open (a cancellation is never a result)
 * - a refusal as longer than the model's window is `overflow`, for the runner to rebuild once
 */
import { NeuronError } from '../../core/errors.ts'
import type { Json } from '../../ledger/json.ts'
import { isContextOverflow } from '../../llm/overflow.ts'
import type { FinishReason, LlmEvent, LlmRequest, Usage } from '../../llm/types.ts'
import { type Registration, specsOf } from '../../tools/registry.ts'
import { type Settlement, settle } from '../../tools/settle.ts'
import type { ToolAuthority, ToolContext } from '../../tools/tool.ts'
import { AirBuffer } from '../events/air.ts'
import type { TokenEstimator } from './budget.ts'
import { Interrupted } from '../intake/control.ts'
import { EVENT, type EventPayloads } from '../events/events.ts'
import type { SessionState } from '../events/projection.ts'
import { ReasoningBlocks } from './reasoning.ts'
import type { RunnerHost } from './runner-host.ts'
import { TurnOutput } from './turn-output.ts'

/** How a provider turn ended, for the runner: `overflow` when the provider refused it as too long. */
export type TurnEnd = 'done' | 'overflow'

/**
 * One tool call of the turn: settled once; its outcome kept when it finished (not when cancelled),
 * and `recorded` once that outcome is in the log, so a turn that fails after recording it (its
 * cost, its `step.ended`) does not record it again while it closes its calls.
 */
interface Call {
  id: string
  settled: Promise<Settlement | 'cancelled'>
  outcome?: Settlement
  recorded?: boolean
}

/** Everything one provider turn holds while it runs. */
export interface TurnContext {
  readonly host: RunnerHost
  readonly step: string
  readonly turn: number
  /** The session as the turn started: its provider, model and who the loop acts for. */
  readonly state: SessionState
  readonly controller: AbortController
  /** The tools offered this turn, by name: a call settles against the registration the model was shown. */
  readonly shown: Map<string, Registration>
  readonly authority: ToolAuthority
  readonly request: LlmRequest
  /** Characters sent (history + tool specs + system): what the token estimator learns from. */
  readonly sent: number
  readonly tokens: TokenEstimator
  /** The output streamed so far; the air buffer sends what subscribers have not seen yet. */
  readonly out: TurnOutput
  readonly reasoning: ReasoningBlocks
  readonly air: AirBuffer
  readonly calls: Call[]
  finish: FinishReason
  usage: Usage | null
  outputRecorded: boolean
}

/**
 * Opens a provider turn: builds its request and records `step.started`.
 *
 * @example
 * const turn = startTurn(host, { step, turn: 1, controller, tokens, offered: (shown) => runner.tools(shown) })
 * await runTurn(turn) // 'done' | 'overflow'
 */
export function startTurn(
  host: RunnerHost,
  opening: { step: string; turn: number; controller: AbortController; tokens: TokenEstimator; offered: (shown: Map<string, Registration>) => { chars: number; ref: string } },
): TurnContext {
  const { step, turn, controller, tokens } = opening
  const state = host.state()
  const shown = host.tools.snapshot()
  const offered = opening.offered(shown)
  const request: LlmRequest = { provider: state.provider, model: state.model, messages: host.history(), tools: specsOf(shown) }
  const system = host.context().system
  if (system) request.system = system
  const sent = host.historyChars() + offered.chars + (system?.length ?? 0)
  const authority = host.toolAuthority(state.by)
  host.record(EVENT.stepStarted, { step, turn, provider: state.provider, model: state.model, tools: offered.ref, chars: sent })
  return {
    host, step, turn, state, controller, shown, authority, request, sent, tokens,
    out: new TurnOutput(),
    reasoning: new ReasoningBlocks(),
    air: new AirBuffer(step, (delta) => host.air(delta)),
    calls: [],
    finish: 'other',
    usage: null,
    outputRecorded: false,
  }
}

/**
 * Streams the turn to its end, then records how it ended (`endTurn`, or `failTurn` on any throw).
 *
 * @example
 * if ((await runTurn(turn)) === 'overflow') // compact once, then a new turn
 */
export async function runTurn(turn: TurnContext): Promise<TurnEnd> {
  try {
    for await (const batch of turn.host.stream(turn.request, turn.controller.signal)) {
      for (const event of batch) onEvent(turn, event)
      turn.air.flushIfDue(turn.out)
    }
    return await endTurn(turn)
  } catch (error) {
    return await failTurn(turn, error)
  }
}

/**
 * The one handler of a streamed provider event: output is folded, a call starts, usage and the
 * finish reason are kept, a retry is recorded.
 *
 * @example
 * for (const event of batch) onEvent(turn, event)
 */
export function onEvent(turn: TurnContext, event: LlmEvent): void {
  const { host, step, out, air } = turn
  switch (event.type) {
    case 'text-delta':
      out.add(event)
      return
    case 'reasoning-delta':
      out.add(event)
      turn.reasoning.text(event.text)
      return
    case 'reasoning-signature':
      turn.reasoning.sign(event.signature)
      return
    case 'reasoning-redacted':
      turn.reasoning.redacted(event.data)
      return
    case 'tool-input-start':
      air.addToolInput(event.id, '', event.name)
      return
    case 'tool-input-delta':
      air.addToolInput(event.id, event.delta)
      return
    case 'tool-call':
      return startCall(turn, event)
    case 'usage': {
      const { type: _type, ...counts } = event
      turn.usage = counts
      return
    }
    case 'retry':
      air.flush(out)
      host.record(EVENT.retried, { step, attempt: event.attempt, delayMs: event.delayMs, status: event.status, message: event.message })
      return
    case 'finish':
      turn.finish = event.reason
  }
}

/** A call is durable before any side effect; then it starts at once. */
function startCall(turn: TurnContext, event: { id: string; name: string; input: Json }): void {
  turn.air.flush(turn.out)
  turn.host.record(EVENT.toolCalled, { step: turn.step, toolCallId: event.id, name: event.name, input: event.input })
  const call: Call = { id: event.id, settled: execute(turn, event) }
  call.settled.then((outcome) => outcome !== 'cancelled' && (call.outcome = outcome), () => {})
  turn.calls.push(call)
}

/** The stream ended: record the output, settle every call, record outcomes in call order, end the step. */
async function endTurn(turn: TurnContext): Promise<TurnEnd> {
  const { host, step, state, calls, usage } = turn
  turn.air.flush(turn.out)
  recordOutput(turn)
  turn.outputRecorded = true
  await Promise.all(calls.map((call) => call.settled))
  turn.controller.signal.throwIfAborted()
  for (const call of calls) {
    recordOutcome(host, step, call.id, call.outcome!)
    call.recorded = true
  }
  const cost = usage ? host.cost(state.provider, state.model, usage) : null
  turn.tokens.observe(turn.sent, usage)
  host.record(EVENT.stepEnded, { step, finish: turn.finish, usage, cost })
  return 'done'
}

/** The turn was interrupted or failed: keep what streamed, close the calls, say why. */
async function failTurn(turn: TurnContext, error: unknown): Promise<TurnEnd> {
  const { host, step, controller, calls } = turn
  turn.air.flush(turn.out)
  if (!turn.outputRecorded) recordOutput(turn)
  if (controller.signal.aborted && controller.signal.reason instanceof Interrupted) {
    closeCalls(turn, 'interrupted')
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
  closeCalls(turn, 'step failed')
  host.record(EVENT.stepFailed, { step, error: failure })
  if (overflow) return 'overflow'
  host.record(EVENT.halted, { reason: 'step-failed', limit: null })
  return 'done'
}

/**
 * Settles one call of a turn (or of a step resumed after a restart). Never rejects: an abort is
 * `cancelled`, anything else a failed outcome.
 *
 * @example
 * const outcome = await execute({ host, step, controller, authority, shown }, call)
 */
export function execute(
  turn: Pick<TurnContext, 'host' | 'step' | 'controller' | 'authority' | 'shown'>,
  call: { id: string; name: string; input: Json },
): Promise<Settlement | 'cancelled'> {
  const { host, step } = turn
  const signal = turn.controller.signal
  const context: ToolContext = {
    sessionId: host.sessionId,
    authority: turn.authority,
    assistantMessageId: step,
    toolCallId: call.id,
    signal,
    permission: host.permission({ step, toolCallId: call.id, signal }),
    progress: (update) => host.air({ type: 'tool-progress', step, toolCallId: call.id, ...update }),
  }
  return settle(call, turn.shown.get(call.name), host.tools, context).catch((error: unknown): Settlement | 'cancelled' => {
    if (signal.aborted) return 'cancelled'
    return { ok: false, error: { code: 'TOOL_FAILED', message: error instanceof Error ? error.message : String(error) } }
  })
}

/** Calls that finished keep their result; the rest are cancelled, which is never a result. */
function closeCalls(turn: TurnContext, reason: string): void {
  for (const call of turn.calls) {
    if (call.recorded) continue
    if (call.outcome) recordOutcome(turn.host, turn.step, call.id, call.outcome)
    else turn.host.record(EVENT.toolCancelled, { step: turn.step, toolCallId: call.id, reason })
  }
}

function recordOutput({ host, step, reasoning, out }: TurnContext): void {
  for (const block of reasoning.list()) {
    if (block.type === 'redacted-reasoning') host.record(EVENT.reasoning, { step, text: '', redacted: block.data })
    else if (block.signature !== undefined) host.record(EVENT.reasoning, { step, text: block.text, signature: block.signature })
    else if (block.text) host.record(EVENT.reasoning, { step, text: block.text })
  }
  if (out.text) host.record(EVENT.text, { step, text: out.text })
}

/**
 * Records one call's outcome: its content (a long one kept as an artifact), or its failure.
 *
 * @example
 * recordOutcome(host, step, 'c1', { ok: false, error: { code: 'PERMISSION_DENIED', message } })
 */
export function recordOutcome(host: RunnerHost, step: string, toolCallId: string, outcome: Settlement): void {
  if (!outcome.ok) {
    host.record(EVENT.toolFailed, { step, toolCallId, error: outcome.error })
    return
  }
  const payload: EventPayloads[typeof EVENT.toolSucceeded] = { step, toolCallId, content: outcome.content, truncated: outcome.truncated }
  if (outcome.full !== null) payload.artifact = host.keepArtifact(outcome.full)
  host.record(EVENT.toolSucceeded, payload)
}
