/**
 * What the model is shown: the session's durable events folded into provider
 * messages, reloaded before every provider turn. The fold covers the current
 * context epoch only: it starts from the epoch's baseline (the messages a
 * completed compaction left: its summary and the kept recent turns) and reads
 * the events after it, so what is assembled is bounded by the epoch, not by
 * the session's whole history. It also counts the characters of what it holds,
 * for the context budget.
 *
 * A step's parts are ordered reasoning → text → tool calls; its tool outcomes
 * follow as tool messages. A cancelled call is dropped from its step, since an
 * interruption is never a tool result and providers require each call to have one.
 */
import type { Stored } from '../../ledger/envelope.ts'
import type { Json } from '../../ledger/json.ts'
import type { Folded, Ledger } from '../../ledger/ledger.ts'
import type { AssistantPart, LlmMessage } from '../../llm/types.ts'
import type { SourceValue } from './context-sources.ts'
import { type Baseline, contextMessage, readBaseline } from './epoch.ts'
import { EVENT, type EventOf, isEvent, isSessionEvent } from '../events/events.ts'
import type { SessionState } from '../events/projection.ts'

export interface HistoryState {
  messages: LlmMessage[]
  /** The epoch's context sources as the model knows them: the baseline's, plus later updates. */
  sources: Record<string, SourceValue>
  /** Serialized characters of `messages`, each counted once when it joins. */
  chars: number
  /**
   * Prompts admitted and not promoted yet: message id → the sequence of its `admitted` event.
   * Their texts stay in the log and are read once, when promoted (at most the inbox's size).
   */
  admitted: Map<string, number>
  step: OpenStep | null
}

interface OpenStep {
  reasoning: AssistantPart[]
  text: AssistantPart[]
  calls: Map<string, { name: string; input: Json }>
  outcomes: LlmMessage[]
}

/**
 * The history of one session topic, folded incrementally: each call reads only
 * the events appended since the last one (the fold's resume pointer).
 *
 * @example
 * const history = new History(ledger, 'session.s1')
 * const messages = history.messages()
 */
export class History {
  private folded: Folded<HistoryState> | undefined
  private epoch: SessionState['epoch'] = null
  private baseline: Baseline | null = null
  /**
   * The open step rendered as messages, and their size, until the fold moves: a turn asks for the
   * messages several times (context check, budget, request) and the step still open before it is
   * the previous answer, which can be long.
   */
  private openView: { messages: LlmMessage[]; chars: number } | null = null
  private open = 0

  constructor(
    private readonly ledger: Ledger,
    private readonly topic: string,
  ) {}

  /**
   * The messages of the session's current epoch. `session` is the projection: its epoch, and the
   * prompts admitted before the epoch began and not promoted yet.
   */
  messages(session: Pick<SessionState, 'epoch' | 'pending' | 'lastSeq'> = { epoch: null, pending: [], lastSeq: Number.POSITIVE_INFINITY }): LlmMessage[] {
    const epoch = session.epoch
    if (epoch?.seq !== this.epoch?.seq || epoch?.baseline !== this.epoch?.baseline) {
      // A new epoch: start over from its baseline; the events before it are not read again.
      this.baseline = epoch ? readBaseline(this.ledger, epoch.baseline) : null
      this.folded = { state: epochState(this.baseline, session.pending), cursor: epoch?.seq ?? 0 }
      this.epoch = epoch
      this.openView = null
    }
    // Events the object applied as it recorded them need no read; only what it has not seen does.
    if (!this.folded || session.lastSeq > this.folded.cursor) {
      const textAt = this.textAt
      this.folded = this.ledger.fold(this.topic, (state, envelope) => reduceHistory(state, envelope, textAt), epochState(null, []), this.folded)
      this.openView = null
    }
    const { messages, step } = this.folded.state
    if (!this.openView) {
      const open = step ? render(step) : []
      this.openView = { messages: open, chars: sizeOf(open) }
    }
    this.open = this.openView.chars
    return [...messages, ...this.openView.messages]
  }

  /**
   * Folds an event the session just recorded, so the next `messages()` reads nothing from storage.
   * Events it never saw (recorded before the history was first read) are read by `messages()`.
   */
  apply(envelope: Stored): void {
    if (!this.folded || envelope.seq <= this.folded.cursor) return
    this.folded = { state: reduceHistory(this.folded.state, envelope, this.textAt), cursor: envelope.seq }
    this.openView = null
  }

  /** A promoted prompt's text, read back from its `admitted` event. */
  private readonly textAt = (seq: number) => admittedText(this.ledger, this.topic, seq)

  /** The current epoch's system text (null without one, or when it has none). */
  system(): string | null {
    return this.baseline?.system ?? null
  }

  /** The context sources the model knows in this epoch, as of the last `messages()`. */
  sources(): Record<string, SourceValue> {
    return this.folded?.state.sources ?? {}
  }

  /** Serialized characters of what the last `messages()` returned. */
  chars(): number {
    return (this.folded?.state.chars ?? 0) + this.open
  }
}

/**
 * The fold's start for an epoch: the baseline's messages and sources, and the prompts admitted
 * earlier and not promoted yet (their admissions lie before the epoch).
 */
export function epochState(baseline: Baseline | null, pending: { messageId: string; seq: number }[]): HistoryState {
  const messages = [...(baseline?.messages ?? [])]
  return { messages, sources: { ...baseline?.sources }, chars: sizeOf(messages), admitted: new Map(pending.map((row) => [row.messageId, row.seq])), step: null }
}

/** The text of the admission at `seq`, read from the log. */
export function admittedText(ledger: Ledger, topic: string, seq: number | undefined): string | undefined {
  const envelope = admittedAt(ledger, topic, seq)
  return envelope?.payload.text
}

/** The `admitted` event at `seq` (one indexed read), or undefined when the event there is another. */
export function admittedAt(ledger: Ledger, topic: string, seq: number | undefined): (Stored & EventOf<typeof EVENT.admitted>) | undefined {
  if (seq === undefined) return undefined
  const [envelope] = ledger.byTopic(topic, { after: seq - 1, limit: 1 }).items
  return envelope && isEvent(envelope, EVENT.admitted) ? envelope : undefined
}

/** Characters of messages as JSON: what a request's size grows by when they join it. */
export function sizeOf(messages: LlmMessage[]): number {
  let chars = 0
  for (const message of messages) chars += JSON.stringify(message).length
  return chars
}

/**
 * Folds one event into the epoch's provider messages. `textAt(seq)` reads a promoted prompt's
 * text from its `admitted` event in the log.
 */
export function reduceHistory(state: HistoryState, envelope: Stored, textAt: (seq: number) => string | undefined): HistoryState {
  if (!isSessionEvent(envelope)) return state
  switch (envelope.type) {
    case EVENT.contextChanged: {
      const { values } = envelope.payload
      const closed = close(state)
      const message = contextMessage(values)
      closed.messages.push(message)
      return { ...closed, sources: { ...closed.sources, ...values }, chars: closed.chars + JSON.stringify(message).length }
    }
    case EVENT.admitted:
      state.admitted.set(envelope.payload.messageId, envelope.seq)
      return state
    case EVENT.prompted: {
      const closed = close(state)
      let chars = closed.chars
      for (const id of envelope.payload.messageIds) {
        const seq = closed.admitted.get(id)
        const message: LlmMessage = { role: 'user', content: (seq === undefined ? undefined : textAt(seq)) ?? '' }
        closed.messages.push(message)
        chars += JSON.stringify(message).length
        closed.admitted.delete(id)
      }
      return { ...closed, chars }
    }
    case EVENT.stepStarted:
      return { ...close(state), step: { reasoning: [], text: [], calls: new Map(), outcomes: [] } }
    case EVENT.reasoning: {
      const { text, signature, redacted } = envelope.payload
      state.step?.reasoning.push(
        redacted !== undefined ? { type: 'redacted-reasoning', data: redacted } : signature === undefined ? { type: 'reasoning', text } : { type: 'reasoning', text, signature },
      )
      return state
    }
    case EVENT.text:
      state.step?.text.push({ type: 'text', text: envelope.payload.text })
      return state
    case EVENT.toolCalled: {
      const { toolCallId, name, input } = envelope.payload
      state.step?.calls.set(toolCallId, { name, input })
      return state
    }
    case EVENT.toolSucceeded: {
      const { toolCallId, content } = envelope.payload
      const call = state.step?.calls.get(toolCallId)
      if (call) state.step!.outcomes.push({ role: 'tool', toolCallId, name: call.name, content })
      return state
    }
    case EVENT.toolFailed: {
      const { toolCallId, error } = envelope.payload
      const call = state.step?.calls.get(toolCallId)
      if (call) state.step!.outcomes.push({ role: 'tool', toolCallId, name: call.name, content: `${error.code}: ${error.message}`, isError: true })
      return state
    }
    case EVENT.toolCancelled:
      state.step?.calls.delete(envelope.payload.toolCallId)
      return state
    default:
      return state
  }
}

/** Closes the open step, if any: its messages join the history. */
function close(state: HistoryState): HistoryState {
  if (!state.step) return state
  const rendered = render(state.step)
  state.messages.push(...rendered)
  return { ...state, chars: state.chars + sizeOf(rendered), step: null }
}

/** One step as provider messages: an assistant message, then its tool results. */
function render(step: OpenStep): LlmMessage[] {
  // Providers require a result for every call: a call the step never answered is left out.
  const answered = new Set(step.outcomes.map((o) => (o as { toolCallId: string }).toolCallId))
  const calls: AssistantPart[] = [...step.calls]
    .filter(([id]) => answered.has(id))
    .map(([id, call]) => ({ type: 'tool-call', id, name: call.name, input: call.input }))
  const parts = [...step.reasoning, ...step.text, ...calls]
  return parts.length > 0 ? [{ role: 'assistant', content: parts }, ...step.outcomes] : [...step.outcomes]
}
