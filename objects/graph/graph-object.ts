/**
 * GraphObject: one graph per principal (`principal:{id}`) and per shared claim
 * (`claim:org:acme`), each in its own Durable Object with its own ledger. It
 * composes the ledger, the graph's query verbs and memory; every public method
 * takes the caller the gate authenticated and authorizes it against the
 * graph's name first.
 */
import { DurableObject } from 'cloudflare:workers'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_BY_SEQ_TABLES } from '../ledger/tables.ts'
import { GRAPH_TABLES } from './tables.ts'
import legacy from '../../migrations/legacy/graph/migrations.js'
import type { Env } from '../core/env.ts'
import type { Caller } from '../access/authorize.ts'
import { Ledger } from '../ledger/ledger.ts'
import { answerFailures } from '../core/rpc.ts'
import { parseOrThrow } from '../core/validate.ts'
import { type EdgeDraft, Graph, type NodeDraft } from './graph.ts'
import { EdgeBody, FoldQuery, ForgetBody, NeighbourQuery, NodeBody, PathQuery, PruneBody, RecallBody, RememberBody } from './inputs.ts'
import { Memory } from './memory.ts'
import type { Forgotten, Linked, NodeFold, Paged, PutNode, Reached, Recalled } from './views.ts'
import { authorizeGraph } from './namespace.ts'
import type { EdgeView } from './node-state.ts'
import type { ChainOp } from './turns.ts'
import { Address } from './vocabulary.ts'

/**
 * The graph's tables: the ledger's, keyed by sequence (the edge index points at envelopes by it),
 * then its own. Its objects built before composition carry the folder now under migrations/legacy/graph.
 */
export const TABLES = tables([LEDGER_BY_SEQ_TABLES, GRAPH_TABLES], { folder: legacy, equals: { 'ledger-by-seq': '0000_init', graph: '0001_memory_fts' } })

export class GraphObject extends DurableObject<Env> {
  protected readonly ledger: Ledger
  protected readonly graph: Graph
  protected readonly memory: Memory

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.graph = new Graph(this.ledger, ctx.storage)
    this.memory = new Memory(this.graph, ctx.storage)
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  putNode(caller: Caller, input: unknown): PutNode {
    this.authorize(caller)
    const body = parseOrThrow(NodeBody, input, 'INVALID_REQUEST')
    return this.graph.putNode({ ...body, author: caller.id } as NodeDraft)
  }

  fold(caller: Caller, address: string, query: unknown = {}): NodeFold {
    this.authorize(caller)
    const q = parseOrThrow(FoldQuery, query, 'INVALID_QUERY')
    return this.graph.fold(validAddress(address), q)
  }

  link(caller: Caller, input: unknown): Linked {
    this.authorize(caller)
    const body = parseOrThrow(EdgeBody, input, 'INVALID_REQUEST')
    return this.graph.link({ ...body, author: caller.id } as EdgeDraft)
  }

  edge(caller: Caller, id: string): EdgeView {
    this.authorize(caller)
    return this.graph.edge(id)
  }

  prune(caller: Caller, id: string, input: unknown): EdgeView {
    this.authorize(caller)
    return this.graph.prune(id, parseOrThrow(PruneBody, input, 'INVALID_REQUEST').reason, caller.id)
  }

  neighbours(caller: Caller, address: string, query: unknown = {}): Paged<EdgeView> {
    this.authorize(caller)
    const { scope: _scope, ...q } = parseOrThrow(NeighbourQuery, query, 'INVALID_QUERY')
    return this.graph.neighbours(validAddress(address), q)
  }

  paths(caller: Caller, address: string, query: unknown = {}): Paged<Reached> {
    this.authorize(caller)
    const { scope: _scope, types, ...q } = parseOrThrow(PathQuery, query, 'INVALID_QUERY')
    return this.graph.paths(validAddress(address), { ...q, ...(types ? { types: types.split(',').filter(Boolean) } : {}) })
  }

  remember(caller: Caller, input: unknown, provenance?: Record<string, string>): { memory: Recalled; duplicate: boolean } {
    this.authorize(caller)
    const body = parseOrThrow(RememberBody, input, 'INVALID_REQUEST')
    return this.memory.remember({ ...body, author: caller.id, ...(provenance ? { provenance } : {}) })
  }

  recall(caller: Caller, input: unknown): { items: Recalled[] } {
    this.authorize(caller)
    const body = parseOrThrow(RecallBody, input, 'INVALID_REQUEST')
    return { items: this.memory.recall(body) }
  }

  forget(caller: Caller, input: unknown): Forgotten {
    this.authorize(caller)
    const body = parseOrThrow(ForgetBody, input, 'INVALID_REQUEST')
    return this.memory.forget({ ...body, author: caller.id })
  }

  /** The pinned memories: the `memory.pinned` value a session's context is offered. */
  pinned(caller: Caller, limit = 20): Recalled[] {
    this.authorize(caller)
    return this.memory.pinned(limit)
  }

  /**
   * Applies a session's conversation-chain writes in order. Each is idempotent
   * (nodes by address and content, edges by content id), so a batch re-sent after
   * a crash writes only what is missing.
   */
  applyChain(caller: Caller, ops: ChainOp[]): { written: number } {
    this.authorize(caller)
    let written = 0
    for (const op of ops) {
      if (op.op === 'node') written += this.graph.putNode(op.node).created ? 1 : 0
      else written += this.graph.link(op.edge).duplicate ? 0 : 1
    }
    return { written }
  }

  /**
   * Refuses, writing nothing, a batch `applyChain` would refuse (objects/graph/graph.ts `check`):
   * a session checks the writes a fork or truncation implies before it records the event.
   */
  checkChain(caller: Caller, ops: ChainOp[]): { ok: true } {
    this.authorize(caller)
    this.graph.check(ops.map((op) => (op.op === 'node' ? { node: op.node } : { edge: op.edge })))
    return { ok: true }
  }

  private authorize(caller: Caller): void {
    authorizeGraph(this.ctx.id.name ?? '', caller)
  }
}

function validAddress(address: string): string {
  return parseOrThrow(Address, address, 'INVALID_ADDRESS')
}

// Expected failures of the RPC surface are answers, not uncaught errors (objects/core/rpc.ts);
// every caller reaches a graph through graphs.ts, whose stubs are `settled`.
answerFailures(GraphObject, ['putNode', 'fold', 'link', 'edge', 'prune', 'neighbours', 'paths', 'remember', 'recall', 'forget', 'pinned', 'applyChain', 'checkChain'])
