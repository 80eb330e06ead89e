/**
 * A session's turns as a conversation chain in its owner's graph (pure).
 *
 *   conversation ◀─follows─ opening turn ◀─follows─ turn ◀─follows─ …
 *   user turn ─prompted─▶ assistant turn ◀─produced─ agent (the model)
 *
 * Each durable session event that makes a turn (a promotion of user input, an
 * assistant's text) maps to graph writes whose content is fixed by the event:
 * node ids come from the event id and times from the event time, so writing the
 * same events twice writes nothing new. The state carried between events is
 * small: the last turn, the last user turn, and admitted texts not yet promoted.
 */
import { sha256Hex } from '../ledger/hash.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import type { EdgeDraft, NodeDraft } from './graph.ts'
import { addressOf } from './vocabulary.ts'

/** One graph write; applied in order, each idempotent. */
export type ChainOp = { op: 'node'; node: NodeDraft } | { op: 'edge'; edge: EdgeDraft }

/** Where the chain stands after the events folded so far. */
export interface ChainState {
  /** The last session sequence mapped. */
  cursor: number
  /** The conversation node, once written. */
  conversation: string | null
  /** The turn the next turn follows. */
  last: string | null
  /** The user turn the next assistant turn answers. */
  user: string | null
  /** The agent (model) producing the current step. */
  agent: string | null
  /** Admitted texts by message id, until promoted. */
  texts: Record<string, string>
}

/** A turn node keeps at most this many characters (within the node text limit); the session's log keeps all. */
export const TURN_TEXT_CHARS = 4000

export function emptyChain(): ChainState {
  return { cursor: 0, conversation: null, last: null, user: null, agent: null, texts: {} }
}

const SEGMENT = /^[A-Za-z0-9_:-]{1,128}$/

/**
 * A node id for any string: itself when it is a valid id, else a hash of it.
 *
 * @example
 * nodeIdOf('demo-1')   // 'demo-1'
 * nodeIdOf('gpt-4.1')  // 'h-…' (dots are not allowed in an address segment)
 */
export function nodeIdOf(value: string): string {
  return SEGMENT.test(value) ? value : `h-${sha256Hex(value).slice(0, 32)}`
}

/** The conversation node of a session. */
export function conversationOf(session: string): string {
  return addressOf('conversation', nodeIdOf(session))
}

/** The turn node an event made. */
export function turnOf(eventId: string): string {
  return addressOf('turn', eventId.slice(0, 32))
}

/**
 * Maps one session event to the graph writes it implies, and the next state.
 *
 * @example
 * let state = emptyChain(); const ops = []
 * for (const e of events) { const r = chainStep(state, e, 's1', 'idp#ada'); state = r.state; ops.push(...r.ops) }
 */
export function chainStep(state: ChainState, event: Stored, session: string, author: string): { state: ChainState; ops: ChainOp[] } {
  const next = { ...state, cursor: event.seq }
  const p = event.payload as Record<string, Json>
  const time = event.time
  if (event.type === 'session.next.created') {
    const conversation = conversationOf(session)
    const node: NodeDraft = { kind: 'conversation', id: nodeIdOf(session), data: { session }, author, time }
    if (typeof p.title === 'string') node.text = p.title
    return { state: { ...next, conversation, last: state.last ?? conversation }, ops: [{ op: 'node', node }] }
  }
  if (event.type === 'session.next.admitted') {
    // Kept only as long as a turn node keeps: the state is stored as one small value.
    return { state: { ...next, texts: { ...state.texts, [String(p.messageId)]: String(p.text).slice(0, TURN_TEXT_CHARS) } }, ops: [] }
  }
  if (event.type === 'session.next.prompted') {
    const ids = p.messageIds as string[]
    const texts = { ...state.texts }
    const text = ids.map((id) => texts[id] ?? '').join('\n\n')
    for (const id of ids) delete texts[id]
    const turn = turnOf(event.id)
    const ops: ChainOp[] = [{ op: 'node', node: turnNode(turn, text, { session, seq: event.seq, role: 'user' }, author, time) }]
    if (state.last) ops.push({ op: 'edge', edge: { source: turn, target: state.last, type: 'follows', author, time } })
    return { state: { ...next, texts, last: turn, user: turn }, ops }
  }
  if (event.type === 'session.next.step.started') {
    const model = `${String(p.provider)}/${String(p.model)}`
    const agent = addressOf('agent', nodeIdOf(model))
    if (agent === state.agent) return { state: next, ops: [] }
    return { state: { ...next, agent }, ops: [{ op: 'node', node: { kind: 'agent', id: agent.split('.')[2]!, text: model, author, time } }] }
  }
  if (event.type === 'session.next.text') {
    const turn = turnOf(event.id)
    const ops: ChainOp[] = [
      { op: 'node', node: turnNode(turn, String(p.text), { session, seq: event.seq, role: 'assistant', step: p.step ?? null }, author, time) },
    ]
    if (state.agent) ops.push({ op: 'edge', edge: { source: state.agent, target: turn, type: 'produced', author, time } })
    if (state.last) ops.push({ op: 'edge', edge: { source: turn, target: state.last, type: 'follows', author, time } })
    if (state.user) ops.push({ op: 'edge', edge: { source: state.user, target: turn, type: 'prompted', author, time } })
    return { state: { ...next, last: turn }, ops }
  }
  return { state: next, ops: [] }
}

function turnNode(address: string, text: string, data: Record<string, Json>, author: string, time: number): NodeDraft {
  const truncated = text.length > TURN_TEXT_CHARS
  return { kind: 'turn', id: address.split('.')[2]!, text: truncated ? text.slice(0, TURN_TEXT_CHARS) : text, data: truncated ? { ...data, truncated } : data, author, time }
}
