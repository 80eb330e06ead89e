/**
 * The session projection: status, inbox, open step and running tools, all
 * folded from `session.next.*` events. The object keeps it up to date by
 * applying the same reducer to each event it appends, and on wake folds the
 * events after its last snapshot (snapshot.ts).
 *
 * Its size is bounded whatever the history's length: counters, the open step's
 * running calls, the inbox (at most `MAX_PENDING` ids), and who the loop acts for
 * (one principal and the claims the gate let through, at most 64). Message texts stay
 * in the log; the message-id index lives in storage (receipts.ts).
 */
import { DEFAULT_AGENT } from '../../agents/profile.ts'
import type { Stored } from '../../ledger/envelope.ts'
import type { PromptedBy } from '../turn/authority.ts'
import { type Delivery, EVENT, isSessionEvent } from './events.ts'
import { titleFromPrompt } from './titles.ts'

/** An admitted prompt waiting for promotion (its text stays in the log). */
export interface InboxRow {
  messageId: string
  seq: number
  delivery: Delivery
}

/** What an exact retry is compared against, and the receipt it gets back. */
export interface Admission {
  seq: number
  digest: string
}

export interface SessionState {
  exists: boolean
  model: string
  provider: string
  title: string | null
  system: string | null
  /** Access policy: the creating principal, and the claims the owner shares the session with. */
  owner: string
  share: string[]
  /** The agent profile the session runs (objects/agents/), from its `created` event. */
  agent: string
  createdAt: number
  /** A drain claim without its end: the runner was working (or crashed while working). */
  run: string | null
  /** A promoted prompt whose turn loop has not reached idle yet. */
  loopOpen: boolean
  /** Who the last promoted loop's prompts came from (authority.ts); null before any, or when not recorded. */
  by: PromptedBy | null
  step: string | null
  /** A compaction turn started and not ended (its id): an interrupt may name it like a step. */
  compaction: string | null
  /** The current context epoch: its baseline artifact, and the seq its messages are folded after. Null: none yet. */
  epoch: { baseline: string; seq: number } | null
  /** The last turn of this epoch the provider counted: its request's size and input tokens (see budget.ts). */
  anchor: { chars: number; tokens: number } | null
  /** The running step's request size, until its usage arrives. */
  sent: number | null
  /**
   * Turns (steps or compactions) abandoned by a restart since the last step that ended or the
   * last promotion: recovery fails a second one for good (see recovery.ts).
   */
  abandoned: number
  /** The last interrupt control entry, and whether an `interrupted` event has honoured it yet. */
  interrupt: { id: string; step: string | null; seq: number; honoured: boolean } | null
  /** Tool calls started and not settled, by id. */
  running: Record<string, string>
  /** The seq of the open step's `step.started` (0: none): a step resumed after a restart reads its calls after it. */
  stepSeq: number
  /** Permission requests waiting for their answer, by tool call id (objects/permission/approvals.ts). */
  asks: Record<string, PendingAsk>
  /** How the last `MAX_SETTLED_ASKS` requests ended, oldest first: a retried answer is compared against it. */
  settledAsks: SettledAsk[]
  pending: InboxRow[]
  counts: { events: number; prompts: number; steps: number; toolCalls: number }
  /** What the session's steps reported using, summed: tokens in and out, and cost (USD, of the steps that priced it). */
  usage: { inputTokens: number; outputTokens: number; cost: number }
  lastSeq: number
  /** The last event's id: every new event names it as its causal parent. */
  lastId: string | null
  /** When the last event was recorded (ms since the epoch): the session's last activity. */
  lastAt?: number
  /** The title its first prompt gives (titles.ts); null before any prompt. Absent in older snapshots. */
  promptTitle?: string | null
  /** The loop halted (a turn limit, a failed step, an overflow) and no prompt was promoted since. */
  halted?: boolean
}

/** A permission request waiting for its answer (its `permission.requested` event, with `seq`). */
export interface PendingAsk {
  step: string
  tool: string
  source: string
  subjects: string[]
  input: unknown
  reason: string
  expiresAt: number
  seq: number
}

/** How a permission request ended: its answer, its expiry, or its call's end (an interrupt) first. */
export interface SettledAsk {
  toolCallId: string
  outcome: 'once' | 'always' | 'reject' | 'expired' | 'cancelled'
}

/** Settled permission requests the state remembers, so a retried answer is told what happened. */
export const MAX_SETTLED_ASKS = 64

/** A fresh, empty state. Plain JSON, so a snapshot stores it as it is. */
export function emptySession(): SessionState {
  return {
    exists: false,
    model: '',
    provider: '',
    title: null,
    system: null,
    owner: '',
    share: [],
    agent: DEFAULT_AGENT,
    createdAt: 0,
    run: null,
    loopOpen: false,
    by: null,
    step: null,
    compaction: null,
    epoch: null,
    anchor: null,
    sent: null,
    abandoned: 0,
    interrupt: null,
    running: {},
    stepSeq: 0,
    asks: {},
    settledAsks: [],
    pending: [],
    counts: { events: 0, prompts: 0, steps: 0, toolCalls: 0 },
    usage: { inputTokens: 0, outputTokens: 0, cost: 0 },
    lastSeq: 0,
    lastId: null,
    lastAt: 0,
    promptTitle: null,
    halted: false,
  }
}

/** Folds one durable event into the session state. Unknown types only advance counters. */
export function reduceSession(state: SessionState, envelope: Stored): SessionState {
  const next: SessionState = {
    ...state,
    counts: { ...state.counts, events: state.counts.events + 1 },
    lastSeq: envelope.seq,
    lastId: envelope.id,
    lastAt: envelope.time,
  }
  if (!isSessionEvent(envelope)) return next
  switch (envelope.type) {
    case EVENT.created: {
      const p = envelope.payload
      return { ...next, exists: true, model: p.model, provider: p.provider, title: p.title, system: p.system, owner: p.owner, share: p.share, agent: p.agent ?? DEFAULT_AGENT, createdAt: envelope.time }
    }
    case EVENT.admitted: {
      const p = envelope.payload
      return {
        ...next,
        pending: [...state.pending, { messageId: p.messageId, seq: envelope.seq, delivery: p.delivery }],
        promptTitle: state.promptTitle ?? titleFromPrompt(p.text),
      }
    }
    case EVENT.prompted: {
      const p = envelope.payload
      const ids = new Set(p.messageIds)
      return {
        ...next,
        loopOpen: true,
        halted: false,
        by: p.by ?? null,
        abandoned: 0,
        pending: state.pending.filter((row) => !ids.has(row.messageId)),
        counts: { ...next.counts, prompts: state.counts.prompts + ids.size },
      }
    }
    case EVENT.drainStarted:
      return { ...next, run: envelope.payload.run }
    case EVENT.drainEnded:
      return { ...next, run: null }
    case EVENT.stepStarted: {
      const p = envelope.payload
      return { ...next, step: p.step, stepSeq: envelope.seq, sent: p.chars ?? null, counts: { ...next.counts, steps: state.counts.steps + 1 } }
    }
    case EVENT.stepEnded: {
      const p = envelope.payload
      const anchor = p.usage && p.usage.inputTokens > 0 && state.sent !== null ? { chars: state.sent, tokens: p.usage.inputTokens } : state.anchor
      const usage = { inputTokens: state.usage.inputTokens + (p.usage?.inputTokens ?? 0), outputTokens: state.usage.outputTokens + (p.usage?.outputTokens ?? 0), cost: state.usage.cost + (p.cost ?? 0) }
      return { ...next, step: null, loopOpen: p.finish === 'tool-calls', anchor, abandoned: 0, usage }
    }
    case EVENT.stepFailed:
      return { ...next, step: null, abandoned: state.abandoned + byRestart(envelope.payload.error) }
    case EVENT.toolCalled: {
      const p = envelope.payload
      return { ...next, running: { ...state.running, [p.toolCallId]: p.name }, counts: { ...next.counts, toolCalls: state.counts.toolCalls + 1 } }
    }
    case EVENT.toolSucceeded:
    case EVENT.toolFailed:
    case EVENT.toolCancelled: {
      const { [envelope.payload.toolCallId]: _settled, ...running } = state.running
      return { ...next, running, ...settleAsk(state, envelope.payload.toolCallId, 'cancelled') }
    }
    case EVENT.permissionRequested: {
      const p = envelope.payload
      const ask: PendingAsk = { step: p.step, tool: p.tool, source: p.source, subjects: p.subjects, input: p.input, reason: p.reason, expiresAt: p.expiresAt, seq: envelope.seq }
      return { ...next, asks: { ...(state.asks ?? {}), [p.toolCallId]: ask } }
    }
    case EVENT.permissionAnswered:
      return { ...next, ...settleAsk(state, envelope.payload.toolCallId, envelope.payload.reply) }
    case EVENT.permissionExpired:
      return { ...next, ...settleAsk(state, envelope.payload.toolCallId, 'expired') }
    case EVENT.interruptRequested: {
      const p = envelope.payload
      return { ...next, interrupt: { id: p.id, step: p.step, seq: envelope.seq, honoured: false } }
    }
    case EVENT.compactionStarted:
      return { ...next, compaction: envelope.payload.id }
    case EVENT.compactionEnded: {
      const p = envelope.payload
      return { ...next, compaction: null, abandoned: state.abandoned + (p.outcome === 'failed' ? byRestart(p.error) : 0) }
    }
    case EVENT.epochStarted: {
      const p = envelope.payload
      return { ...next, epoch: { baseline: p.baseline, seq: p.after }, anchor: null }
    }
    case EVENT.interrupted: {
      const p = envelope.payload
      const honoured = state.interrupt && p.request === state.interrupt.id ? { ...state.interrupt, honoured: true } : state.interrupt
      return { ...next, step: null, compaction: null, loopOpen: false, interrupt: honoured }
    }
    case EVENT.halted:
      return { ...next, step: null, loopOpen: false, halted: true }
    default:
      return next
  }
}

/** A request leaves the pending ones with how it ended (a call's end settles only a request still pending). */
function settleAsk(state: SessionState, toolCallId: string, outcome: SettledAsk['outcome']): Partial<Pick<SessionState, 'asks' | 'settledAsks'>> {
  const asks = state.asks ?? {}
  if (!(toolCallId in asks)) return {}
  const { [toolCallId]: _gone, ...rest } = asks
  return { asks: rest, settledAsks: [...(state.settledAsks ?? []), { toolCallId, outcome }].slice(-MAX_SETTLED_ASKS) }
}

/** 1 when a turn failed because a restart abandoned it (recovery.ts's `ABANDONED`). */
function byRestart(error: { code: string }): number {
  return error.code === 'ABANDONED' ? 1 : 0
}

/** The public view of a session (`GET /v1/sessions/:id`). */
export interface SessionView {
  id: string
  title: string | null
  owner: string
  share: string[]
  model: string
  /** The agent profile it runs. */
  agent: string
  status: 'idle' | 'busy'
  /** The running provider turn (or compaction), which an interrupt may name as its target. */
  step: string | null
  createdAt: number
  pending: number
  counts: SessionState['counts']
  /** Tokens and cost summed over the session's steps, as of `lastSequence`. */
  usage: SessionState['usage']
  lastSequence: number
}

/** The public view of a folded state. Busy while a drain runs, a loop is open, or prompts wait. */
export function viewOf(id: string, state: SessionState): SessionView {
  return {
    id,
    title: state.title,
    owner: state.owner,
    share: state.share,
    model: `${state.provider}/${state.model}`,
    agent: state.agent,
    status: state.run !== null || state.loopOpen || state.pending.length > 0 ? 'busy' : 'idle',
    step: state.step ?? state.compaction,
    createdAt: state.createdAt,
    pending: state.pending.length,
    counts: state.counts,
    usage: state.usage,
    lastSequence: state.lastSeq,
  }
}
