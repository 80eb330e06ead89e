/**
 * Crash recovery on wake (spec §3.2): a drain claim without its end, an open
 * step, or a call without an outcome means the previous process died while
 * working. Calls still running are failed durably, never re-run, and the open
 * step is failed; then the claim is closed. The caller resumes the drain.
 * Running it twice is harmless: the second time nothing is open.
 */
import { EVENT, type EventPayloads, type EventType } from './events.ts'
import type { SessionState } from './projection.ts'

export const ABANDONED = { code: 'ABANDONED', message: 'abandoned by restart' }

/**
 * @example
 * if (recover(state, record)) await ctx.storage.setAlarm(Date.now())
 */
export function recover(
  state: SessionState,
  record: <T extends EventType>(type: T, payload: EventPayloads[T]) => unknown,
): boolean {
  const running = Object.keys(state.running)
  if (state.run === null && state.step === null && running.length === 0) return false
  const step = state.step ?? 'none'
  for (const toolCallId of running) record(EVENT.toolFailed, { step, toolCallId, error: ABANDONED })
  if (state.step !== null) record(EVENT.stepFailed, { step: state.step, error: ABANDONED })
  if (state.run !== null) record(EVENT.drainEnded, { run: state.run, reason: 'recovered' })
  return true
}
