/**
 * The compaction turn: summarise the epoch's head with the session's model (or its agent profile's `compactionModel`),
 * keep its tail, and start a new context epoch from the result. Hidden events
 * frame it (`compaction.started` / `compaction.ended`); only a completed one
 * is followed by `epoch.started`, so a failed, interrupted or crashed
 * compaction leaves what the model is shown exactly as it was.
 */
import { NeuronError } from '../../core/errors.ts'
import type { Usage } from '../../llm/types.ts'
import type { Budget, TokenEstimator } from './budget.ts'
import { baselineOf, compactionRequest, splitForCompaction } from './compaction.ts'
import { Interrupted } from '../intake/control.ts'
import { keepJson } from './epoch.ts'
import { EVENT } from '../events/events.ts'
import type { RunnerHost } from './runner-host.ts'

export type CompactionOutcome = 'completed' | 'failed' | 'interrupted'
/** How a compaction turn ended, and why it failed when it did. */
export interface CompactionResult {
  outcome: CompactionOutcome
  error?: { code: string; message: string }
}

/**
 * @example
 * const { outcome } = await compactionTurn(host, { id, reason: 'budget', estimate, budget, tokens, signal })
 */
export async function compactionTurn(
  host: RunnerHost,
  turn: { id: string; reason: 'budget' | 'overflow'; estimate: number; budget: Budget | null; tokens: TokenEstimator; signal: AbortSignal },
): Promise<CompactionResult> {
  const { id, reason, estimate, budget, tokens, signal } = turn
  const state = host.state()
  // Without a known window, aim at half of what was refused.
  const input = budget?.input ?? Math.ceil(estimate / 2)
  host.record(EVENT.compactionStarted, { id, reason, estimate, budget: input })
  try {
    const { head, tail } = splitForCompaction(host.history(), tokens.charsFor(input / 4))
    const summaryTokens = Math.max(16, Math.min(budget?.output ?? input, Math.ceil(input / 8)))
    const request = compactionRequest(host.compactionModel?.() ?? state, head, tokens.charsFor(input) - 1024, summaryTokens)
    let summary = ''
    let usage: Usage | null = null
    for await (const batch of host.stream(request, signal)) {
      for (const event of batch) {
        // A summariser's tool calls and reasoning are not part of the summary.
        if (event.type === 'text-delta') summary += event.text
        else if (event.type === 'usage') {
          const { type: _type, ...counts } = event
          usage = counts
        }
      }
    }
    signal.throwIfAborted()
    if (summary.trim() === '') throw new NeuronError('COMPACTION_EMPTY', 'the compaction turn produced no summary')
    const baseline = keepJson(host.keepArtifact, baselineOf(state.system, host.sources(), summary.trim(), tail))
    const ended = host.record(EVENT.compactionEnded, { id, outcome: 'completed', baseline, summarised: head.length, kept: tail.length, usage })
    // In the same synchronous block as its end, so no crash can fall between the two.
    host.record(EVENT.epochStarted, { baseline, after: ended.seq, reason: 'compaction' })
    return { outcome: 'completed' }
  } catch (error) {
    if (signal.aborted && signal.reason instanceof Interrupted) {
      const { message, request } = signal.reason
      host.record(EVENT.compactionEnded, { id, outcome: 'interrupted', error: { code: 'INTERRUPTED', message } })
      host.record(EVENT.interrupted, request === undefined ? { step: id, reason: message } : { step: id, reason: message, request })
      return { outcome: 'interrupted' }
    }
    const failure = error instanceof NeuronError ? { code: error.code, message: error.message } : { code: 'COMPACTION_FAILED', message: String(error) }
    host.record(EVENT.compactionEnded, { id, outcome: 'failed', error: failure })
    return { outcome: 'failed', error: failure }
  }
}
