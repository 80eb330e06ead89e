/**
 * What the model is shown: the session's durable events folded into provider
 * messages. Built fresh from the log before every provider turn (spec §3.2
 * "reload projected history once before continuation").
 *
 * A step's parts are ordered reasoning → text → tool calls; its tool outcomes
 * follow as tool messages. A cancelled call is dropped from its step, since an
 * interruption is never a tool result and providers require each call to have one.
 */
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import type { Folded, Ledger } from '../ledger/ledger.ts'
import type { AssistantPart, LlmMessage } from '../llm/types.ts'
import { EVENT, type EventPayloads } from './events.ts'

interface HistoryState {
  messages: LlmMessage[]
  texts: Map<string, string>
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

  constructor(
    private readonly ledger: Ledger,
    private readonly topic: string,
  ) {}

  messages(): LlmMessage[] {
    this.folded = this.ledger.fold(this.topic, reduceHistory, { messages: [], texts: new Map(), step: null }, this.folded)
    const { messages, step } = this.folded.state
    return step ? [...messages, ...render(step)] : [...messages]
  }
}

function reduceHistory(state: HistoryState, envelope: Stored): HistoryState {
  const p = envelope.payload as never
  switch (envelope.type) {
    case EVENT.admitted: {
      const { messageId, text } = p as EventPayloads[typeof EVENT.admitted]
      state.texts.set(messageId, text)
      return state
    }
    case EVENT.prompted: {
      const closed = close(state)
      for (const id of (p as EventPayloads[typeof EVENT.prompted]).messageIds) {
        closed.messages.push({ role: 'user', content: closed.texts.get(id) ?? '' })
        closed.texts.delete(id)
      }
      return closed
    }
    case EVENT.stepStarted:
      return { ...close(state), step: { reasoning: [], text: [], calls: new Map(), outcomes: [] } }
    case EVENT.reasoning: {
      const { text, signature, redacted } = p as EventPayloads[typeof EVENT.reasoning]
      state.step?.reasoning.push(
        redacted !== undefined ? { type: 'redacted-reasoning', data: redacted } : signature === undefined ? { type: 'reasoning', text } : { type: 'reasoning', text, signature },
      )
      return state
    }
    case EVENT.text:
      state.step?.text.push({ type: 'text', text: (p as EventPayloads[typeof EVENT.text]).text })
      return state
    case EVENT.toolCalled: {
      const { toolCallId, name, input } = p as EventPayloads[typeof EVENT.toolCalled]
      state.step?.calls.set(toolCallId, { name, input })
      return state
    }
    case EVENT.toolSucceeded: {
      const { toolCallId, content } = p as EventPayloads[typeof EVENT.toolSucceeded]
      const call = state.step?.calls.get(toolCallId)
      if (call) state.step!.outcomes.push({ role: 'tool', toolCallId, name: call.name, content })
      return state
    }
    case EVENT.toolFailed: {
      const { toolCallId, error } = p as EventPayloads[typeof EVENT.toolFailed]
      const call = state.step?.calls.get(toolCallId)
      if (call) state.step!.outcomes.push({ role: 'tool', toolCallId, name: call.name, content: `${error.code}: ${error.message}`, isError: true })
      return state
    }
    case EVENT.toolCancelled:
      state.step?.calls.delete((p as EventPayloads[typeof EVENT.toolCancelled]).toolCallId)
      return state
    default:
      return state
  }
}

/** Closes the open step, if any: its messages join the history. */
function close(state: HistoryState): HistoryState {
  if (!state.step) return state
  state.messages.push(...render(state.step))
  return { ...state, step: null }
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
