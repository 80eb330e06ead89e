/**
 * A step resumed after a restart: the process that ran it died while some of its calls waited for
 * a permission answer (recovery.ts kept the step open and failed the calls that were running). The
 * parked calls run again from their recorded input, through the same gate, which finds each call's
 * request in the fold and waits for its answer instead of asking twice; their side effects never
 * started, so running them is their first run. Then the step ends with `tool-calls` and the loop
 * goes on as after any step. An interrupt cancels the calls still waiting, as in a live turn.
 */
import { EVENT } from '../events/events.ts'
import { Interrupted } from '../intake/control.ts'
import { execute, recordOutcome } from './provider-turn.ts'
import type { RunnerHost } from './runner-host.ts'
import type { Json } from '../../ledger/json.ts'
import type { Settlement } from '../../tools/settle.ts'

/**
 * Runs the parked calls `ids` of the open `step` to their outcomes and ends the step.
 *
 * @example
 * await resumeStep(host, state.step, parkedCalls(state), controller)
 */
export async function resumeStep(host: RunnerHost, step: string, ids: string[], controller: AbortController): Promise<void> {
  const wanted = new Set(ids)
  const calls = new Map<string, { id: string; name: string; input: Json }>()
  for (const called of host.calledAfter(host.state().stepSeq)) {
    if (wanted.has(called.toolCallId)) calls.set(called.toolCallId, { id: called.toolCallId, name: called.name, input: called.input })
    if (calls.size === wanted.size) break
  }
  const turn = { host, step, controller, authority: host.toolAuthority(host.state().by), shown: host.tools.snapshot() }
  const outcomes: (Settlement | 'cancelled')[] = await Promise.all(
    ids.map((id) => {
      const call = calls.get(id)
      if (!call) return Promise.resolve<Settlement>({ ok: false, error: { code: 'ABANDONED', message: 'the call is not in the log of its step' } })
      return execute(turn, call)
    }),
  )
  const signal = controller.signal
  if (signal.aborted) {
    ids.forEach((toolCallId, i) => {
      const outcome = outcomes[i]!
      if (outcome !== 'cancelled') recordOutcome(host, step, toolCallId, outcome)
      else host.record(EVENT.toolCancelled, { step, toolCallId, reason: 'interrupted' })
    })
    const reason = signal.reason instanceof Interrupted ? signal.reason : null
    if (reason) host.record(EVENT.interrupted, reason.request === undefined ? { step, reason: reason.message } : { step, reason: reason.message, request: reason.request })
    else host.record(EVENT.stepFailed, { step, error: { code: 'STEP_FAILED', message: String(signal.reason) } })
    return
  }
  ids.forEach((toolCallId, i) => recordOutcome(host, step, toolCallId, outcomes[i] as Settlement))
  host.record(EVENT.stepEnded, { step, finish: 'tool-calls', usage: null, cost: null })
}
