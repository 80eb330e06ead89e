/**
 * The graph's vocabulary and its rules, as pure data and checks.
 *
 * A node's address is `node.{kind}.{id}`; kinds and edge types grow by use (any
 * name of the right shape is accepted, no migration). A few edge types carry a
 * rule: some forbid an edge from a node to itself, and the chain-like ones
 * forbid cycles (a turn cannot follow its own successor). Types not listed
 * here have no rule.
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { utf8Length } from '../ledger/json.ts'

/** Node text (what recall searches) is at most this many UTF-8 bytes. */
export const MAX_NODE_TEXT = 16 * 1024
/** Deepest path walk a query may ask for. */
export const MAX_PATH_DEPTH = 16
/** Nodes a path walk visits at most before it stops (bounds one query's work). */
export const MAX_WALK_ROWS = 10_000

const Name = z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be 1–64 of [a-z0-9_-], starting with a letter')
/** A node kind: `knowledge`, `turn`, `backlog-item`, … */
export const Kind = Name
/** An edge type: `follows`, `remembers`, `blocked-by`, … */
export const EdgeType = Name
/** A node id: one address segment. */
export const NodeId = z.string().regex(/^[A-Za-z0-9_:-]{1,128}$/, 'must be 1–128 of [A-Za-z0-9_:-]')
/** A node address, `node.{kind}.{id}`. */
export const Address = z.string().regex(/^node\.[a-z][a-z0-9_-]{0,63}\.[A-Za-z0-9_:-]{1,128}$/, 'must be node.{kind}.{id}')

/** What an edge type forbids. */
export interface EdgeRule {
  selfEdge: boolean
  cycles: boolean
}

const CHAIN: EdgeRule = { selfEdge: false, cycles: false }
const LINK: EdgeRule = { selfEdge: false, cycles: true }
const FREE: EdgeRule = { selfEdge: true, cycles: true }

/** The edge types the system itself writes, and their rules. */
export const RULES: Record<string, EdgeRule> = {
  follows: CHAIN,
  forks: CHAIN,
  // A cut before the first turn points the conversation's head at the conversation itself.
  truncates: FREE,
  prompted: CHAIN,
  produced: CHAIN,
  supersedes: CHAIN,
  'blocked-by': CHAIN,
  remembers: LINK,
  pins: LINK,
  regards: LINK,
}

/** The rule for a type; unlisted types allow self-edges and cycles. */
export function ruleOf(type: string): EdgeRule {
  return RULES[type] ?? FREE
}

/**
 * The address of a node.
 *
 * @example
 * addressOf('knowledge', 'k1') // 'node.knowledge.k1'
 */
export function addressOf(kind: string, id: string): string {
  return `node.${kind}.${id}`
}

/**
 * The kind and id of an address.
 *
 * @example
 * parseAddress('node.turn.t1') // { kind: 'turn', id: 't1' }
 */
export function parseAddress(address: string): { kind: string; id: string } {
  const [, kind, id] = address.split('.')
  return { kind: kind!, id: id! }
}

/** Refuses node text over `MAX_NODE_TEXT` bytes with `TEXT_TOO_LARGE`. */
export function checkText(text: string): void {
  const size = utf8Length(text)
  if (size > MAX_NODE_TEXT) {
    throw new NeuronError('TEXT_TOO_LARGE', `node text is ${size} bytes; the limit is ${MAX_NODE_TEXT}`, { status: 413, details: { size, limit: MAX_NODE_TEXT } })
  }
}

/** Refuses a self-edge of a type that forbids it with `SELF_EDGE`. */
export function checkSelfEdge(source: string, target: string, type: string): void {
  if (source === target && !ruleOf(type).selfEdge) {
    throw new NeuronError('SELF_EDGE', `a ${type} edge cannot point from a node to itself`, { status: 400, details: { source, type } })
  }
}
