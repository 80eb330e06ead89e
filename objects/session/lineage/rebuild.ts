/**
 * Rebuilds a past provider request from the ledger alone: the step's epoch
 * baseline (system text and first messages), the events folded after it up to
 * the step, and the tool specs the step names. What the model was told is
 * history, so it can be shown, diffed and audited after the fact.
 */
import { NeuronError } from '../../core/errors.ts'
import type { Stored } from '../../ledger/envelope.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import type { LlmRequest, ToolSpec } from '../../llm/types.ts'
import { readBaseline } from '../turn/epoch.ts'
import { EVENT, type EventPayloads, isEvent } from '../events/events.ts'
import { admittedText, epochState, reduceHistory } from '../turn/history.ts'
import { emptySession, reduceSession } from '../events/projection.ts'
import { withoutCuts } from './truncation.ts'

/**
 * @example
 * const request = rebuildRequest(ledger, 'session.s1', stepId)
 * // the same LlmRequest the runner sent for that step
 */
export function rebuildRequest(ledger: Ledger, topic: string, step: string): LlmRequest {
  // Pass 1: the step, the epoch it ran in, and the inbox where that epoch's fold begins.
  let session = emptySession()
  let started: { seq: number; payload: EventPayloads[typeof EVENT.stepStarted] } | null = null
  let epoch: { baseline: string; after: number; pending: { messageId: string; seq: number }[] } | null = null
  const cuts: EventPayloads[typeof EVENT.truncated][] = []
  walk(ledger, topic, Number.POSITIVE_INFINITY, (envelope) => {
    session = reduceSession(session, envelope)
    if (isEvent(envelope, EVENT.truncated)) cuts.push(envelope.payload)
    if (isEvent(envelope, EVENT.epochStarted)) {
      const p = envelope.payload
      // A compaction's epoch begins right after its end, so the inbox then is the inbox now.
      epoch = { baseline: p.baseline, after: p.after, pending: p.after === 0 ? [] : session.pending }
    }
    if (isEvent(envelope, EVENT.stepStarted) && envelope.payload.step === step) {
      started = { seq: envelope.seq, payload: envelope.payload }
      return false
    }
    return true
  })
  const found = started as { seq: number; payload: EventPayloads[typeof EVENT.stepStarted] } | null
  const at = epoch as { baseline: string; after: number; pending: { messageId: string; seq: number }[] } | null
  if (!found || !at || !found.payload.tools) throw new NeuronError('STEP_NOT_REBUILDABLE', `step ${step} has no recorded context in ${topic}`, { status: 404, details: { step } })
  // Pass 2: the epoch's messages, folded from its baseline up to and including the step's start.
  const baseline = readBaseline(ledger, at.baseline)
  let history = epochState(baseline, at.pending)
  walk(ledger, topic, found.seq, (envelope) => {
    if (envelope.seq > at.after) history = reduceHistory(history, envelope, (seq) => admittedText(ledger, topic, seq))
    return true
  })
  const tools = JSON.parse(new TextDecoder().decode(ledger.artifacts.get(found.payload.tools.replace(/^sha256:/, ''))!)) as ToolSpec[]
  // The same stage the session composes between its history and the request: truncations.
  const messages = withoutCuts(history.messages, cuts, at.after)
  const request: LlmRequest = { provider: found.payload.provider, model: found.payload.model, messages, tools }
  if (baseline.system) request.system = baseline.system
  return request
}

/** Events of `topic` up to seq `until`, oldest first, while `visit` returns true. */
function walk(ledger: Ledger, topic: string, until: number, visit: (envelope: Stored) => boolean): void {
  for (let after = 0; ; ) {
    const { items, next } = ledger.byTopic(topic, { after, limit: 500 })
    for (const envelope of items) {
      if (envelope.seq > until || !visit(envelope)) return
    }
    if (next === null) return
    after = next
  }
}
