/**
 * A node's state is a fold over its incident edges. Nodes hold no state of
 * their own: the node envelope gives identity (kind, id, text), and every edge
 * touching the node, in sequence order, says what is true of it now. A role
 * revised by a later edge (`supersedes` an earlier edge) or pruned keeps its
 * earlier reading in `history`; only `current` drops it.
 */
import type { Json } from '../ledger/json.ts'

/** One edge as the graph returns it. */
export interface EdgeView {
  id: string
  seq: number
  type: string
  source: string
  target: string
  author: string
  time: number
  parent: string | null
  payload: Json | null
  /** Set when a later envelope pruned or superseded this edge. */
  retired: Retirement | null
}

/** Why an edge no longer holds: pruned, or superseded by a later edge. */
export interface Retirement {
  id: string
  how: 'pruned' | 'superseded'
  reason: string
  by: string | null
  author: string
  time: number
}

/** A node's identity, from its node envelope. */
export interface NodeView {
  address: string
  kind: string
  id: string
  text: string | null
  data: Json | null
  author: string
  time: number
  /** The node envelope's id. */
  envelope: string
}

/** The folded state of a node over a window of its incident edges. */
export interface NodeState {
  node: NodeView
  /** Edges that hold now, in sequence order. */
  current: EdgeView[]
  /** Every incident edge in the window, retired ones included: both readings stay true in history. */
  history: EdgeView[]
  /** Nodes this one supersedes, and nodes that supersede it (live `supersedes` edges). */
  supersedes: string[]
  supersededBy: string[]
}

/**
 * Folds incident edges (in sequence order) into a node's state.
 *
 * @example
 * const state = incident.reduce(reduceNode, emptyNodeState(node))
 * state.current.filter((e) => e.type === 'blocked-by')
 */
export function reduceNode(state: NodeState, edge: EdgeView): NodeState {
  const history = [...state.history, edge]
  if (edge.retired) return { ...state, history }
  const address = state.node.address
  const next = { ...state, history, current: [...state.current, edge] }
  if (edge.type === 'supersedes' && edge.source === address) next.supersedes = [...state.supersedes, edge.target]
  if (edge.type === 'supersedes' && edge.target === address) next.supersededBy = [...state.supersededBy, edge.source]
  return next
}

/** The state of a node before any edge is folded. */
export function emptyNodeState(node: NodeView): NodeState {
  return { node, current: [], history: [], supersedes: [], supersededBy: [] }
}
