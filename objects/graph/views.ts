/**
 * What the graph answers, beyond a node's fold (node-state.ts): pages, nodes
 * reached by a walk, recalled memories. Plain shapes with no platform types,
 * so the typed client names the same ones the objects build.
 */
import type { EdgeView, NodeState, NodeView } from './node-state.ts'

export interface Paged<T> {
  items: T[]
  next: number | null
}

/** One node reached by a walk: how deep, and the edges that led there. */
export interface Reached {
  address: string
  depth: number
  edges: string[]
}

/** One recalled memory: the knowledge node, its text and where it came from. */
export interface Recalled {
  address: string
  text: string
  /** The memory edge that holds it (forget names the node; history names this). */
  edge: string
  type: string
  time: number
  score: number
  /** Addresses of the nodes it regards: the conversation, turn or artifact it came from. */
  sources: string[]
}

/** What `forget` answers: the retired memory edge, and the memory that replaced it if one was given. */
export interface Forgotten {
  forgotten: EdgeView
  replacement: Recalled | null
}

/** What writing a node answers: the node, and whether this write created it. */
export interface PutNode {
  node: NodeView
  created: boolean
}

/** What writing an edge answers: the edge, and whether it already existed. */
export interface Linked {
  edge: EdgeView
  duplicate: boolean
}

/** A node's fold, one page of its incident edges at a time. */
export type NodeFold = NodeState & { next: number | null }
