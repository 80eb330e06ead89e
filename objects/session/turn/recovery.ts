/**
 * Crash recovery on wake (spec §3.2): a drain claim without its end, an open
 * step, or a call without an outcome means the previous process died while
 * working. Calls still running are failed durably, never re-run, and the open
 * step is failed; then the claim is closed. The caller resumes the drain.
 * Running it twice is harmless: the second time nothing is open.
 *
 * A turn abandoned by a restart is failed and the loop resumes; when the turn it resumed with
 * (or a compaction) is abandoned by a restart too, before any step ends, it is failed with
 * `ABANDONED_TWICE` and the loop halts. Whatever killed the process twice (a call that stalls
 * the isolate, an input that crashes it) would kill it on every wake otherwise, and the object
 * would never serve again; a new prompt starts a fresh attempt.
 *
 * A step whose calls wait for a permission answer is not failed: its other running calls are, and
 * the step stays open, parked, for the runner to resume when the answer comes (resumed-step.ts).
 *
 * An interrupt recorded just before the crash and not yet honoured is honoured
 * here: its turn's calls are cancelled (an interruption is never a result) and
 * the loop is closed with `interrupted`, so the drain does not continue it.
 */
import { EVENT, type EventPayloads, type EventType } from '../events/events.ts'
import type { SessionState } from '../events/projection.ts'

type Record = <T extends EventType>(type: T, payload: EventPayloads[T]) => unknown
type Failure = { code: string; message: string }

export const ABANDONED = { code: 'ABANDONED', message: 'abandoned by restart' }
/** A turn abandoned by a restart when the turn before it in the same loop was too. */
export const ABANDONED_TWICE = {
  code: 'ABANDONED_TWICE',
  message: 'abandoned by a restart for the second time in a row, so it is not retried: the loop is halted; a new prompt starts again',
}
/** A host tool's call open at a restart: its host can no longer answer it (see host-tools.ts). */
export const HOST_GONE = { code: 'HOST_GONE', message: 'the session restarted while the host held the call' }

/**
 * `hostCalls`: the running calls that were sent to a browser host; they fail `HOST_GONE`.
 *
 * @example
 * if (recover(state, record, hostTools.restore())) await timers.set('wakeup', Date.now())
 */
export function recover(
  state: SessionState,
  record: Record,
  hostCalls: ReadonlySet<string> = new Set(),
): boolean {
  const running = Object.keys(state.running)
  const control = pendingInterrupt(state)
  if (state.run === null && state.step === null && state.compaction === null && running.length === 0 && !control) return false
  const step = state.step ?? 'none'
  const again = state.abandoned >= 1 && (state.step !== null || state.compaction !== null)
  const abandoned = again ? ABANDONED_TWICE : ABANDONED
  if (state.compaction !== null) {
    record(EVENT.compactionEnded, { id: state.compaction, outcome: 'failed', error: abandoned })
  }
  if (control) {
    for (const toolCallId of running) record(EVENT.toolCancelled, { step, toolCallId, reason: 'interrupted' })
    record(EVENT.interrupted, { step: state.step, reason: 'interrupt honoured on wake', request: control.id })
  } else if (parkedCalls(state).length > 0) {
    // The step's calls that wait for a permission answer never started their side effect: the
    // step stays open for the runner to resume (resumed-step.ts); its other calls were running.
    const parked = new Set(parkedCalls(state))
    for (const toolCallId of running) if (!parked.has(toolCallId)) record(EVENT.toolFailed, { step, toolCallId, error: hostCalls.has(toolCallId) ? HOST_GONE : ABANDONED })
  } else {
    failOpenWork(state, record, { step: abandoned, call: (toolCallId) => (hostCalls.has(toolCallId) ? HOST_GONE : ABANDONED) }, again ? { error: ABANDONED_TWICE } : null)
  }
  if (state.run !== null) record(EVENT.drainEnded, { run: state.run, reason: 'recovered' })
  return true
}

/**
 * Closes the work a session has open, durably: each running call fails (with `failure.call`'s
 * error for it, else the step's), then the open step fails; with `halt`, the loop halts
 * `step-failed`. Recovery closes a dead process's work with it; the runner closes its own after
 * a fault outside any turn's handling, so nothing stays "running" and the loop is not retried forever.
 *
 * @example
 * failOpenWork(state, record, { step: { code: 'RUNNER_FAILED', message } }, {})
 */
export function failOpenWork(state: SessionState, record: Record, failure: { step: Failure; call?: (toolCallId: string) => Failure }, halt: { error?: Failure } | null): void {
  const step = state.step ?? 'none'
  for (const toolCallId of Object.keys(state.running)) record(EVENT.toolFailed, { step, toolCallId, error: failure.call?.(toolCallId) ?? failure.step })
  if (state.step !== null) record(EVENT.stepFailed, { step: state.step, error: failure.step })
  if (halt) record(EVENT.halted, halt.error ? { reason: 'step-failed', limit: null, error: halt.error } : { reason: 'step-failed', limit: null })
}

/**
 * The running calls of the open step that wait for a permission answer (objects/permission/approvals.ts).
 *
 * @example
 * if (parkedCalls(state).length > 0) // the step resumes rather than fails
 */
export function parkedCalls(state: SessionState): string[] {
  if (state.step === null) return []
  const asks = state.asks ?? {}
  return Object.keys(state.running).filter((toolCallId) => asks[toolCallId]?.step === state.step)
}

/**
 * The interrupt entry still owed an answer: not yet honoured, and naming the turn that is open now
 * (or, with no target, an open loop). An entry whose turn ended some other way is spent.
 */
export function pendingInterrupt(state: SessionState): SessionState['interrupt'] {
  const control = state.interrupt
  if (!control || control.honoured) return null
  const open = control.step === null ? state.loopOpen && state.step === null : control.step === state.step || control.step === state.compaction
  return open ? control : null
}
