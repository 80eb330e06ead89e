/**
 * The graph (nodes and typed edges) over one object's ledger. Every node and
 * every edge is an envelope: a node is `node` on its own address
 * (`node.{kind}.{id}`), an edge is `edge.{type}` on its source's address with
 * its target in a header and its causal parent as the envelope's parent. The
 * `edge` and `retired` tables only index those envelopes for the query verbs:
 * neighbours by type and direction, bounded paths, and a node's fold. How a
 * row reads back as a view is edge-rows.ts; the recursive walks (paths, the
 * cycle check) are walks.ts.
 *
 * Writes are synchronous and await-free, so each commits atomically with its
 * index rows. An edge re-sent with the same content (same time) is recognised
 * by its content id and not written twice.
 */
import { NeuronError } from '../core/errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import { canonicalJson, type Json } from '../ledger/json.ts'
import { clampLimit, cutPage, type Ledger } from '../ledger/ledger.ts'
import { fromLogRow, LOG_COLUMNS, type LogRow } from '../ledger/log-row.ts'
import { MAX_PAGE } from '../core/limits.ts'
import { EDGE_AT, EDGE_COLUMNS, EDGE_FROM, type EdgeRow, toEdge, toNode } from './edge-rows.ts'
import { type EdgeView, emptyNodeState, type NodeState, type NodeView, reduceNode, type Retirement } from './node-state.ts'
import { addressOf, checkSelfEdge, checkText, ruleOf } from './vocabulary.ts'
import type { Paged, Reached } from './views.ts'
import { type PathQuery, reaches, walkPaths } from './walks.ts'

export const NODE = 'node'
export const RETIRED = 'edge.retired'

/** A node to create. `id` defaults to a random one. */
export interface NodeDraft {
  kind: string
  id?: string
  text?: string
  data?: Json
  author: string
  time?: number
}

/** An edge to append. `supersedes` names an earlier edge of the same source this one revises. */
export interface EdgeDraft {
  source: string
  target: string
  type: string
  author: string
  parent?: string | null
  payload?: Json
  supersedes?: string
  reason?: string
  time?: number
}

/**
 * @example
 * const graph = new Graph(ledger, ctx.storage)
 * graph.putNode({ kind: 'backlog-item', id: 'b1', text: 'ship it', author: 'user:ada' })
 * graph.link({ source: 'node.backlog-item.b1', target: 'node.backlog-item.b0', type: 'blocked-by', author: 'user:ada' })
 * graph.neighbours('node.backlog-item.b1', { type: 'blocked-by' })
 */
export class Graph {
  private readonly sql: SqlStorage

  constructor(
    readonly ledger: Ledger,
    storage: DurableObjectStorage,
  ) {
    this.sql = storage.sql
  }

  /** Creates a node. The same node again is `created: false`; other content at a taken address is `NODE_EXISTS`. */
  putNode(draft: NodeDraft): { node: NodeView; created: boolean } {
    const { address, payload, existing } = this.nodeCheck(draft)
    if (existing) return { node: toNode(existing), created: false }
    const draftEnvelope: Record<string, unknown> = { topic: address, type: NODE, author: draft.author, payload }
    if (draft.time !== undefined) draftEnvelope.time = draft.time
    return { node: toNode(this.ledger.append(draftEnvelope).envelope), created: true }
  }

  /**
   * Refuses, writing nothing, what `putNode` and `link` would refuse for these writes applied in
   * order (a node earlier in the list counts as there for a later edge); answers the addresses.
   * A caller checks this before it records anything that will lead to the writes.
   */
  check(writes: ({ node: NodeDraft } | { edge: EdgeDraft })[]): void {
    const created = new Set<string>()
    for (const write of writes) {
      if ('node' in write) {
        created.add(this.nodeCheck(write.node).address)
        continue
      }
      const { source, target, type } = write.edge
      checkSelfEdge(source, target, type)
      for (const end of [source, target]) if (!created.has(end) && !this.has(end)) throw unknownNode(end)
      if (!ruleOf(type).cycles && reaches(this.sql, target, source, type)) throw cycle(source, target, type)
    }
  }

  /** The node at `address`, or `UNKNOWN_NODE`. */
  node(address: string): NodeView {
    const found = this.find(address)
    if (!found) throw unknownNode(address)
    return toNode(found)
  }

  /** Whether a node exists at `address`. */
  has(address: string): boolean {
    // By topic, oldest first: a node is its topic's first envelope (`+type` keeps the planner on that index).
    return this.sql.exec(`select 1 from log where topic = ? and +type = '${NODE}' order by seq limit 1`, address).toArray().length > 0
  }

  /**
   * Appends an edge. Refuses unknown endpoints (`UNKNOWN_NODE`), self-edges and
   * cycles where the type forbids them (`SELF_EDGE`, `CYCLE`), and revising an
   * edge that is not a live edge of the same source (`UNKNOWN_EDGE`, `EDGE_RETIRED`).
   */
  link(draft: EdgeDraft): { edge: EdgeView; duplicate: boolean } {
    const headers: { key: string; value: Json; reason?: string }[] = [{ key: 'target', value: draft.target }]
    if (draft.supersedes !== undefined) {
      headers.push(draft.reason === undefined ? { key: 'supersedes', value: draft.supersedes } : { key: 'supersedes', value: draft.supersedes, reason: draft.reason })
    }
    const envelopeDraft: Record<string, unknown> = {
      topic: draft.source,
      type: `edge.${draft.type}`,
      author: draft.author,
      parent: draft.parent ?? (draft.supersedes ?? null),
      headers,
    }
    if (draft.payload !== undefined) envelopeDraft.payload = draft.payload
    if (draft.time !== undefined) envelopeDraft.time = draft.time
    const sealed = this.ledger.seal(envelopeDraft)
    checkSelfEdge(draft.source, draft.target, draft.type)
    this.requireNodes(draft.source, draft.target)
    const revised = draft.supersedes === undefined ? null : this.revisable(draft.supersedes, sealed.envelope.id)
    if (revised === 'revised by this edge') return { edge: this.edgeAt(this.ledger.seqOf(sealed.envelope.id)!), duplicate: true }
    if (revised && revised.source !== draft.source) {
      throw new NeuronError('NOT_SAME_SOURCE', `edge ${draft.supersedes} leaves ${revised.source}, not ${draft.source}`, { status: 409, details: { edge: draft.supersedes } })
    }
    if (!ruleOf(draft.type).cycles && reaches(this.sql, draft.target, draft.source, draft.type)) throw cycle(draft.source, draft.target, draft.type)
    // A re-sent edge (same content id) passes the checks above and is recognised here.
    const { envelope, duplicate } = this.ledger.appendSealed(sealed, envelopeDraft)
    if (duplicate) return { edge: this.edgeAt(envelope.seq), duplicate: true }
    this.sql.exec('insert into edge (seq, source, target, type) values (?, ?, ?, ?)', envelope.seq, draft.source, draft.target, draft.type)
    if (revised) this.retireAt(revised, { how: 'superseded', reason: draft.reason ?? 'superseded', by: envelope.id, author: draft.author })
    const { id, seq, author, time, parent } = envelope
    return { edge: { id, seq, type: draft.type, source: draft.source, target: draft.target, author, time, parent, payload: draft.payload ?? null, retired: null }, duplicate: false }
  }

  /** Prunes a live edge with a reason. The edge stays in history; queries stop following it. */
  prune(edgeId: string, reason: string, author: string): EdgeView {
    const edge = this.liveEdge(edgeId)
    this.retireAt(edge, { how: 'pruned', reason, by: null, author })
    return this.edgeAt(edge.seq)
  }

  /** The edge with this envelope id, or `UNKNOWN_EDGE`. */
  edge(id: string): EdgeView {
    const seq = this.ledger.seqOf(id)
    const row = seq === undefined ? undefined : this.sql.exec<EdgeRow>(`select ${EDGE_COLUMNS} from ${EDGE_AT}`, seq).toArray()[0]
    if (!row) throw new NeuronError('UNKNOWN_EDGE', `no edge ${id}`, { status: 404, details: { edge: id } })
    return toEdge(row)
  }

  /**
   * Live edges leaving (`out`) or reaching (`in`) a node, optionally of one type,
   * in sequence order; `next` is the cursor to pass as `after`.
   */
  neighbours(address: string, options: { type?: string; direction?: 'out' | 'in'; after?: number; limit?: number } = {}): Paged<EdgeView> {
    if (!this.has(address)) throw unknownNode(address)
    const limit = clampLimit(options.limit)
    const end = options.direction === 'in' ? 'target' : 'source'
    const byType = options.type === undefined ? '' : 'and e.type = ?'
    const params: (string | number)[] = [address, ...(options.type === undefined ? [] : [options.type]), options.after ?? 0, limit + 1]
    const rows = this.sql
      .exec<EdgeRow>(`select ${EDGE_COLUMNS} from ${EDGE_FROM} where e.${end} = ? ${byType} and e.seq > ? and r.edge is null order by e.seq limit ?`, ...params)
      .toArray()
    return cutPage(rows.map(toEdge), limit, (edge) => edge.seq)
  }

  /** The live edges from `source` to `target`, of any type, in sequence order. */
  between(source: string, target: string): EdgeView[] {
    // Found by target: `+e.source` keeps the planner off the source index, which for a hub
    // (the memory node) would scan every one of its edges.
    return this.sql
      .exec<EdgeRow>(`select ${EDGE_COLUMNS} from ${EDGE_FROM} where e.target = ? and +e.source = ? and r.edge is null order by e.seq limit ${MAX_PAGE}`, target, source)
      .toArray()
      .map(toEdge)
  }

  /**
   * Nodes reachable from `from` along live edges (of `types`, if given), nearest
   * first, at most `maxDepth` hops; with `to`, only the paths that end there.
   * `after` is the number of results already read.
   */
  paths(from: string, options: PathQuery = {}): Paged<Reached> {
    if (!this.has(from)) throw unknownNode(from)
    if (options.to !== undefined && !this.has(options.to)) throw unknownNode(options.to)
    return walkPaths(this.sql, from, options)
  }

  /**
   * A node's state: the fold of a window of its incident edges (both directions,
   * retired ones included) in sequence order. Page with `after` = `next`.
   */
  fold(address: string, options: { after?: number; limit?: number } = {}): NodeState & { next: number | null } {
    const node = this.node(address)
    const limit = clampLimit(options.limit)
    const after = options.after ?? 0
    const rows = this.sql
      .exec<EdgeRow>(
        // Column 2 is the sequence (a compound select orders by position).
        `select ${EDGE_COLUMNS} from ${EDGE_FROM} where e.source = ? and e.seq > ?
         union select ${EDGE_COLUMNS} from ${EDGE_FROM} where e.target = ? and e.seq > ?
         order by 2 limit ?`,
        address,
        after,
        address,
        after,
        limit + 1,
      )
      .toArray()
    const page = cutPage(rows.map(toEdge), limit, (edge) => edge.seq)
    return { ...page.items.reduce(reduceNode, emptyNodeState(node)), next: page.next }
  }

  /**
   * Both endpoints exist, or `UNKNOWN_NODE`. One probe each: a node is the first envelope on its
   * topic, so `limit 1` stops there even on a hub with many outgoing edges.
   */
  private requireNodes(source: string, target: string): void {
    if (!this.has(source)) throw unknownNode(source)
    if (target !== source && !this.has(target)) throw unknownNode(target)
  }

  /** A node's address and payload, and the node already there; `TEXT_TOO_LARGE`, or `NODE_EXISTS` for other content there. */
  private nodeCheck(draft: NodeDraft): { address: string; payload: Record<string, Json>; existing: Stored | undefined } {
    if (draft.text !== undefined) checkText(draft.text)
    const id = draft.id ?? crypto.randomUUID()
    const address = addressOf(draft.kind, id)
    const payload: Record<string, Json> = { kind: draft.kind, id }
    if (draft.text !== undefined) payload.text = draft.text
    if (draft.data !== undefined) payload.data = draft.data
    const existing = this.find(address)
    if (existing && canonicalJson(existing.payload ?? null) !== canonicalJson(payload)) {
      throw new NeuronError('NODE_EXISTS', `${address} exists with other content; nodes are not rewritten`, { status: 409, details: { address } })
    }
    return { address, payload, existing }
  }

  private find(address: string): Stored | undefined {
    const [row] = this.sql.exec(`select ${LOG_COLUMNS} from log where topic = ? and +type = '${NODE}' order by seq limit 1`, address).raw()
    return row ? fromLogRow(row as LogRow) : undefined
  }

  private edgeAt(seq: number): EdgeView {
    return toEdge(this.sql.exec<EdgeRow>(`select ${EDGE_COLUMNS} from ${EDGE_AT}`, seq).one())
  }

  /** The live edge a new edge revises; a re-send of the edge that already revised it is recognised. */
  private revisable(id: string, revisedBy: string): EdgeView | 'revised by this edge' {
    const edge = this.edge(id)
    if (edge.retired?.by === revisedBy) return 'revised by this edge'
    return this.liveEdge(id)
  }

  private liveEdge(id: string): EdgeView {
    const edge = this.edge(id)
    if (edge.retired) {
      throw new NeuronError('EDGE_RETIRED', `edge ${id} was already ${edge.retired.how}`, { status: 409, details: { edge: id, retired: edge.retired.id } })
    }
    return edge
  }

  private retireAt(edge: EdgeView, how: { how: Retirement['how']; reason: string; by: string | null; author: string }): void {
    const { envelope } = this.ledger.append({
      topic: edge.source,
      type: RETIRED,
      author: how.author,
      parent: edge.id,
      payload: { edge: edge.id, how: how.how, reason: how.reason, by: how.by },
    })
    this.sql.exec('insert into retired (edge, by) values (?, ?)', edge.seq, envelope.seq)
  }
}

function cycle(source: string, target: string, type: string): NeuronError {
  return new NeuronError('CYCLE', `a ${type} edge from ${source} to ${target} would close a cycle`, { status: 409, details: { source, target, type } })
}

function unknownNode(address: string): NeuronError {
  return new NeuronError('UNKNOWN_NODE', `no node ${address}`, { status: 404, details: { address } })
}
