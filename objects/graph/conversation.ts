/**
 * Conversations are chains, not buckets (spec §2.3).
 *
 *   conversation ──▶ opening turn ──▶ turn ──▶ turn ──▶ …
 *
 * Every turn is an envelope on `conversation.{id}` whose causal parent is the
 * turn before it; that parent link is the typed `follows` edge. A branch's head
 * is a fold: the latest turn on the branch, or the latest `conversation.head`
 * pointer (a fork or a truncation). Nothing is rewritten; every branch stays
 * readable by walking its chain.
 */
import { NeuronError } from '../core/errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import { current } from '../ledger/headers.ts'
import type { Json } from '../ledger/json.ts'
import type { Folded, Ledger } from '../ledger/ledger.ts'

export const OPENED = 'conversation.opened'
export const TURN = 'conversation.turn'
export const HEAD = 'conversation.head'
export const MAIN = 'main'

export interface Turn {
  id: string
  seq: number
  branch: string
  role: string
  content: Json
  author: string
  time: number
}

/** A conversation's folded state: its node and each branch's head turn. */
export interface ConversationState {
  node: string | null
  heads: Record<string, string>
}

const EMPTY: ConversationState = { node: null, heads: {} }

/** Folds a conversation topic into its node and branch heads. */
export function reduceConversation(state: ConversationState, envelope: Stored): ConversationState {
  if (envelope.type === OPENED) return { ...state, node: envelope.id }
  if (envelope.type === TURN) {
    const branch = String(current(envelope.headers, 'branch') ?? MAIN)
    return { ...state, heads: { ...state.heads, [branch]: envelope.id } }
  }
  if (envelope.type === HEAD) {
    const { branch, turn } = envelope.payload as { branch: string; turn: string }
    return { ...state, heads: { ...state.heads, [branch]: turn } }
  }
  return state
}

/**
 * @example
 * const chats = new Conversations(ledger)
 * chats.open('c1', 'user:ada')
 * const hi = chats.say('c1', { role: 'user', content: 'hi', author: 'user:ada' })
 * chats.fork('c1', hi.id, 'alt', 'user:ada')
 */
export class Conversations {
  /** Resume pointers: each conversation is folded once per wake, then incrementally. */
  private readonly folds = new Map<string, Folded<ConversationState>>()

  constructor(private readonly ledger: Ledger) {}

  /** Opens the conversation node. Opening twice is `CONVERSATION_EXISTS`. */
  open(id: string, author: string, meta: Json = {}): Stored {
    if (this.state(id).node) {
      throw new NeuronError('CONVERSATION_EXISTS', `conversation ${id} is already open`, { status: 409, details: { id } })
    }
    return this.ledger.append({ topic: topicOf(id), type: OPENED, author, payload: meta }).envelope
  }

  /** Appends a turn to a branch: its parent is the branch head (the node, for the opening turn). */
  say(id: string, turn: { role: string; content: Json; author: string; branch?: string }): Turn {
    const state = this.require(id)
    const branch = turn.branch ?? MAIN
    const parent = state.heads[branch] ?? (branch === MAIN ? state.node : null)
    if (!parent) throw unknownBranch(id, branch)
    const { envelope } = this.ledger.append({
      topic: topicOf(id),
      type: TURN,
      author: turn.author,
      parent,
      headers: [
        { key: 'edge', value: 'follows' },
        { key: 'branch', value: branch },
      ],
      payload: { role: turn.role, content: turn.content },
    })
    return toTurn(envelope)
  }

  /** Starts `branch` at an existing turn. The old branch is untouched. */
  fork(id: string, at: string, branch: string, author: string): Stored {
    const state = this.require(id)
    if (state.heads[branch] || branch === MAIN) {
      throw new NeuronError('BRANCH_EXISTS', `branch ${branch} already exists in ${id}`, { status: 409, details: { id, branch } })
    }
    this.requireTurn(id, at)
    return this.point(id, branch, at, 'fork', author)
  }

  /** Points a branch's head at an earlier turn of that branch's chain. History stays. */
  truncate(id: string, branch: string, to: string, author: string): Stored {
    const head = this.require(id).heads[branch]
    if (!head) throw unknownBranch(id, branch)
    this.requireTurn(id, to)
    if (to !== head && !this.isAncestor(to, head)) {
      throw new NeuronError('NOT_ON_BRANCH', `turn ${to} is not on branch ${branch}`, { status: 409, details: { id, branch, turn: to } })
    }
    return this.point(id, branch, to, 'truncate', author)
  }

  /** The branch's last `limit` turns, oldest first: a walk of the chain back from its head. */
  transcript(id: string, options: { branch?: string; limit?: number } = {}): { turns: Turn[]; more: boolean } {
    const branch = options.branch ?? MAIN
    const limit = options.limit ?? 100
    const state = this.require(id)
    const head = state.heads[branch]
    if (!head) {
      if (branch === MAIN) return { turns: [], more: false }
      throw unknownBranch(id, branch)
    }
    const turns = [toTurn(this.ledger.get(head)!)]
    let after = 0
    while (turns.length < limit) {
      const page = this.ledger.ancestors(head, { after, limit: Math.min(limit - turns.length + 1, 1000) })
      for (const envelope of page.items) {
        if (envelope.type !== TURN) return { turns: turns.reverse(), more: false }
        turns.push(toTurn(envelope))
      }
      if (page.next === null) return { turns: turns.reverse(), more: false }
      after = page.next
    }
    return { turns: turns.slice(0, limit).reverse(), more: true }
  }

  private point(id: string, branch: string, turn: string, reason: string, author: string): Stored {
    return this.ledger.append({
      topic: topicOf(id),
      type: HEAD,
      author,
      parent: turn,
      headers: [{ key: 'edge', value: reason === 'fork' ? 'forks' : 'truncates' }],
      payload: { branch, turn, reason },
    }).envelope
  }

  private state(id: string): ConversationState {
    const folded = this.ledger.fold(topicOf(id), reduceConversation, EMPTY, this.folds.get(id))
    this.folds.set(id, folded)
    return folded.state
  }

  private require(id: string): ConversationState {
    const state = this.state(id)
    if (!state.node) throw new NeuronError('NOT_FOUND', `conversation ${id} does not exist`, { status: 404, details: { id } })
    return state
  }

  private requireTurn(id: string, turn: string): void {
    const envelope = this.ledger.get(turn)
    if (!envelope || envelope.type !== TURN || envelope.topic !== topicOf(id)) {
      throw new NeuronError('UNKNOWN_TURN', `turn ${turn} is not in conversation ${id}`, { status: 404, details: { id, turn } })
    }
  }

  private isAncestor(candidate: string, of: string): boolean {
    let after = 0
    for (;;) {
      const page = this.ledger.ancestors(of, { after, limit: 1000 })
      if (page.items.some((envelope) => envelope.id === candidate)) return true
      if (page.next === null) return false
      after = page.next
    }
  }
}

/** The address a conversation's turns and pointers live on. */
export function topicOf(id: string): string {
  return `conversation.${id}`
}

function toTurn(envelope: Stored): Turn {
  const { role, content } = envelope.payload as { role: string; content: Json }
  return {
    id: envelope.id,
    seq: envelope.seq,
    branch: String(current(envelope.headers, 'branch') ?? MAIN),
    role,
    content,
    author: envelope.author,
    time: envelope.time,
  }
}

function unknownBranch(id: string, branch: string): NeuronError {
  return new NeuronError('UNKNOWN_BRANCH', `branch ${branch} does not exist in ${id}`, { status: 404, details: { id, branch } })
}
