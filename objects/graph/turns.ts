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
 *
 * Forks and truncations are events too, so the whole chain is a fold over the
 * session's log: a fork's `created` carries `forked-from` with the origin's turn
 * it continues (`head`), and its copies of the origin's events carry
 * `copied-from`; a copy is then that origin turn, already in the graph, and maps
 * to no write. A `truncated` event names the turn the head moves back to. Any
 * prefix of the log therefore folds to the chain as it stood there, a fork's
 * included: forking or truncating at a copied turn points at a node that exists.
 */
import { sha256Hex } from '../ledger/hash.ts'
import type { Stored } from '../ledger/envelope.ts'
import { current } from '../ledger/headers.ts'
import type { Json } from '../ledger/json.ts'
import type { EdgeDraft, NodeDraft } from './graph.ts'
import { EVENT, isSessionEvent } from '../session/events/events.ts'
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
  /** A fork whose copies are its origin's turns, in this same graph (its `forked-from` named a head). */
  linked?: boolean
}

/** The `forked-from` header of a fork's `created` event; `head` when the fork continues the origin's turn in the same graph. */
export interface ForkedFrom {
  session: string
  at: number
  head?: string
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
 * A conversation's opening writes: its node and, for a fork that continues an origin turn, the `forks` edge to it.
 *
 * @example
 * openingOps('s2', null, 'idp#ada', Date.now(), { session: 's1', at: 12, head: 'node.turn.ab…' })
 */
export function openingOps(session: string, title: string | null, author: string, time: number, forked?: ForkedFrom): ChainOp[] {
  const node: NodeDraft = { kind: 'conversation', id: nodeIdOf(session), data: { session }, author, time }
  if (title !== null) node.text = title
  const ops: ChainOp[] = [{ op: 'node', node }]
  if (forked?.head) {
    ops.push({ op: 'edge', edge: { source: conversationOf(session), target: forked.head, type: 'forks', author, time, payload: { session: forked.session, at: forked.at } } })
  }
  return ops
}

/**
 * A truncation's write: the `truncates` edge from the conversation to the turn its head moves back to
 * (the conversation itself when the cut is before the first turn).
 */
export function truncationOps(session: string, head: string, at: number, author: string, time: number): ChainOp[] {
  return [{ op: 'edge', edge: { source: conversationOf(session), target: head, type: 'truncates', author, time, payload: { at } } }]
}

/**
 * Maps one session event to the graph writes it implies, and the next state.
 *
 * @example
 * let state = emptyChain(); const ops = []
 * for (const e of events) { const r = chainStep(state, e, 's1', 'idp#ada'); state = r.state; ops.push(...r.ops) }
 */
export function chainStep(state: ChainState, event: Stored, session: string, author: string): { state: ChainState; ops: ChainOp[] } {
  const origin = current(event.headers, 'copied-from')
  // A linked fork's copy is the origin's turn: its node and edges are in the graph already.
  if (state.linked && typeof origin === 'string') return { state: mapEvent(state, event, session, author, origin).state, ops: [] }
  return mapEvent(state, event, session, author, event.id)
}

/** What `event` writes, its turn node named after event `turnId` (itself, or the origin event a linked copy stands for). */
function mapEvent(state: ChainState, event: Stored, session: string, author: string, turnId: string): { state: ChainState; ops: ChainOp[] } {
  const next = { ...state, cursor: event.seq }
  const time = event.time
  if (!isSessionEvent(event)) return { state: next, ops: [] }
  if (event.type === EVENT.created) {
    const p = event.payload
    const conversation = conversationOf(session)
    const forked = current(event.headers, 'forked-from') as ForkedFrom | undefined
    const ops = openingOps(session, typeof p.title === 'string' ? p.title : null, author, time, forked)
    if (forked?.head) return { state: { ...next, conversation, last: forked.head, linked: true }, ops }
    return { state: { ...next, conversation, last: state.last ?? conversation }, ops }
  }
  if (event.type === EVENT.truncated) {
    const p = event.payload
    // Cuts recorded before they named their head moved the chain themselves.
    if (typeof p.head !== 'string') return { state: next, ops: [] }
    return { state: { ...next, last: p.head, user: null }, ops: truncationOps(session, p.head, Number(p.at), author, time) }
  }
  if (event.type === EVENT.admitted) {
    const p = event.payload
    // Kept only as long as a turn node keeps: the state is stored as one small value.
    return { state: { ...next, texts: { ...state.texts, [String(p.messageId)]: String(p.text).slice(0, TURN_TEXT_CHARS) } }, ops: [] }
  }
  if (event.type === EVENT.prompted) {
    const ids = event.payload.messageIds
    const texts = { ...state.texts }
    const text = ids.map((id) => texts[id] ?? '').join('\n\n')
    for (const id of ids) delete texts[id]
    const turn = turnOf(turnId)
    const ops: ChainOp[] = [{ op: 'node', node: turnNode(turn, text, { session, seq: event.seq, role: 'user' }, author, time) }]
    if (state.last) ops.push({ op: 'edge', edge: { source: turn, target: state.last, type: 'follows', author, time } })
    return { state: { ...next, texts, last: turn, user: turn }, ops }
  }
  if (event.type === EVENT.stepStarted) {
    const p = event.payload
    const model = `${String(p.provider)}/${String(p.model)}`
    const agent = addressOf('agent', nodeIdOf(model))
    if (agent === state.agent) return { state: next, ops: [] }
    return { state: { ...next, agent }, ops: [{ op: 'node', node: { kind: 'agent', id: agent.split('.')[2]!, text: model, author, time } }] }
  }
  if (event.type === EVENT.text) {
    const p = event.payload
    const turn = turnOf(turnId)
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
