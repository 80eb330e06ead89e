/**
 * Memory is a node (`node.memory.main` of each graph) whose typed edges reach
 * into what is worth remembering:
 *
 * - remember: a `knowledge` node (its id is the hash of its text), a `remembers`
 *   edge (or `pins`, for memories offered to every session) from the memory node,
 *   and `regards` edges to the nodes it came from (a conversation, a turn, an artifact)
 * - recall: walks the live memory edges through their full-text index: SQLite
 *   FTS5 BM25 over the node text picks 3 candidates per result, which recency and
 *   edge type re-rank
 * - forget: prunes the memory edge, or supersedes it with a corrected memory,
 *   with a reason. The envelopes stay in history; recall never returns it again,
 *   because its index row goes with the edge.
 *
 * The index holds one row per live memory edge (rowid = the edge's sequence),
 * so recall is one statement: the FTS5 query, plus a `regards` probe per hit.
 */
import { NeuronError } from '../core/errors.ts'
import { sha256Hex } from '../ledger/hash.ts'
import type { Json } from '../ledger/json.ts'
import type { Graph } from './graph.ts'
import type { EdgeView } from './node-state.ts'
import { addressOf, checkText } from './vocabulary.ts'
import type { Forgotten, Recalled } from './views.ts'

export const MEMORY_NODE = addressOf('memory', 'main')
/** Memory edge types and their weight in ranking: a pinned memory outranks a remembered one. */
export const MEMORY_EDGES: Record<string, number> = { remembers: 1, pins: 1.5 }
/** Recency: a memory this many milliseconds old ranks at half the weight of a new one. */
export const RECENCY_HALF_MS = 30 * 24 * 3_600_000
export const MAX_RECALL = 50
/** Sources listed per recalled memory. */
const MAX_SOURCES = 16
/** BM25 candidates per result that recency and edge type re-rank. */
const CANDIDATES = 3

export interface RememberInput {
  text: string
  regards?: string[]
  pinned?: boolean
  author: string
  /** Where the memory was made (session, tool call); kept on the memory edge. */
  provenance?: Json
}

/**
 * @example
 * const memory = new Memory(graph)
 * memory.remember({ text: 'Ada prefers metric units', author: 'user:ada' })
 * memory.recall({ query: 'units' }) // [{ address: 'node.knowledge.…', text: 'Ada prefers metric units', … }]
 */
export class Memory {
  private readonly sql: SqlStorage

  constructor(
    private readonly graph: Graph,
    storage: DurableObjectStorage,
  ) {
    this.sql = storage.sql
  }

  /** Remembers a text. The same text while it is remembered returns the existing memory (`duplicate`). */
  remember(input: RememberInput): { memory: Recalled; duplicate: boolean } {
    checkText(input.text)
    if (input.text.trim() === '') throw new NeuronError('EMPTY_TEXT', 'a memory needs text', { status: 400 })
    for (const address of input.regards ?? []) this.graph.node(address)
    const { node } = this.graph.putNode({ kind: 'knowledge', id: sha256Hex(input.text).slice(0, 32), text: input.text, author: input.author })
    const live = this.liveEdge(node.address)
    if (live) return { memory: this.recalled(live, node.text!, 0), duplicate: true }
    this.ensureMemoryNode(input.author)
    const edge = this.hold(node.address, node.text!, input)
    return { memory: this.recalled(edge, node.text!, 0), duplicate: false }
  }

  /** Memories matching `query`, best first. Recency and pinning weigh in with BM25. */
  recall(input: { query: string; limit?: number; now?: number }): Recalled[] {
    const match = matchExpression(input.query)
    const limit = input.limit ?? 10
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECALL) {
      throw new NeuronError('INVALID_LIMIT', `limit must be an integer in [1, ${MAX_RECALL}]`, { details: { limit } })
    }
    // One statement. BM25 picks the candidates the way a plain FTS5 `ORDER BY rank` does (no
    // column read per match); recency and edge type re-rank those few; only the results get
    // their edge id and sources.
    const rows = this.sql
      .exec<{ text: string; address: string; type: string; time: number; score: number; edge: string; sources: string }>(
        `select r.text, r.address, r.type, r.time, r.score, l.id as edge,
                (select json_group_array(target) from (
                   select e.target from edge e where e.source = r.address and e.type = 'regards'
                   and not exists (select 1 from retired x where x.edge = e.seq) order by e.seq limit ${MAX_SOURCES})) as sources
         from (
           select c.seq, m.text, m.address, m.type, m.time,
                  c.bm25 * (case m.type when 'pins' then ${MEMORY_EDGES.pins} else 1.0 end) / (1.0 + (? - m.time) / ${RECENCY_HALF_MS}.0) as score
           from (select rowid as seq, bm25(memory_text) as bm25 from memory_text where memory_text match ? order by rank limit ?) c
           join memory_text m on m.rowid = c.seq
           order by score limit ?
         ) r
         join log l on l.seq = r.seq
         order by r.score`,
        input.now ?? Date.now(),
        match,
        limit * CANDIDATES,
        limit,
      )
      .toArray()
    return rows.map((row) => ({
      address: row.address,
      text: row.text,
      edge: row.edge,
      type: row.type,
      time: row.time,
      score: -row.score,
      sources: JSON.parse(row.sources) as string[],
    }))
  }

  /**
   * Forgets the memory of `address`: prunes its memory edge, or, with `replacement`,
   * supersedes it with a corrected memory. `UNKNOWN_MEMORY` when nothing holds it.
   */
  forget(input: { address: string; reason: string; author: string; replacement?: string }): Forgotten {
    const live = this.liveEdge(input.address)
    if (!live) throw new NeuronError('UNKNOWN_MEMORY', `nothing in memory holds ${input.address}`, { status: 404, details: { address: input.address } })
    if (input.replacement === undefined) {
      const forgotten = this.graph.prune(live.id, input.reason, input.author)
      this.sql.exec('delete from memory_text where rowid = ?', live.seq)
      return { forgotten, replacement: null }
    }
    checkText(input.replacement)
    const { node } = this.graph.putNode({ kind: 'knowledge', id: sha256Hex(input.replacement).slice(0, 32), text: input.replacement, author: input.author })
    if (node.address === input.address) throw new NeuronError('SAME_MEMORY', 'the replacement is the same text', { status: 409 })
    if (this.liveEdge(node.address)) throw new NeuronError('MEMORY_EXISTS', `${node.address} is already remembered`, { status: 409, details: { address: node.address } })
    const edge = this.hold(node.address, node.text!, { text: node.text!, author: input.author, pinned: live.type === 'pins', supersedes: live.id, reason: input.reason })
    this.sql.exec('delete from memory_text where rowid = ?', live.seq)
    this.graph.link({ source: node.address, target: input.address, type: 'supersedes', author: input.author, payload: { reason: input.reason } })
    for (const source of this.sources(input.address)) this.graph.link({ source: node.address, target: source, type: 'regards', author: input.author })
    return { forgotten: this.graph.edge(live.id), replacement: this.recalled(edge, node.text!, 0) }
  }

  /** The pinned memories, oldest first: what every session of this graph's owner is offered. */
  pinned(limit = 20): Recalled[] {
    if (!this.graph.has(MEMORY_NODE)) return []
    return this.graph.neighbours(MEMORY_NODE, { type: 'pins', limit }).items.map((edge) => {
      const node = this.graph.node(edge.target)
      return this.recalled(edge, node.text ?? '', 0)
    })
  }

  private hold(address: string, text: string, input: RememberInput & { supersedes?: string; reason?: string }): EdgeView {
    const type = input.pinned ? 'pins' : 'remembers'
    const draft: Parameters<Graph['link']>[0] = { source: MEMORY_NODE, target: address, type, author: input.author }
    if (input.provenance !== undefined) draft.payload = input.provenance
    if (input.supersedes !== undefined) {
      draft.supersedes = input.supersedes
      draft.reason = input.reason ?? 'superseded'
    }
    const { edge } = this.graph.link(draft)
    for (const source of input.regards ?? []) this.graph.link({ source: address, target: source, type: 'regards', author: input.author })
    this.sql.exec('insert into memory_text (rowid, text, address, type, time) values (?, ?, ?, ?, ?)', edge.seq, text, address, type, edge.time)
    return edge
  }

  private ensureMemoryNode(author: string): void {
    if (!this.graph.has(MEMORY_NODE)) this.graph.putNode({ kind: 'memory', id: 'main', author })
  }

  /** The live memory edge holding `address`, if any. */
  private liveEdge(address: string): EdgeView | undefined {
    return this.graph.between(MEMORY_NODE, address).find((edge) => edge.type in MEMORY_EDGES)
  }

  private sources(address: string): string[] {
    return this.graph.neighbours(address, { type: 'regards', limit: MAX_SOURCES }).items.map((edge) => edge.target)
  }

  private recalled(edge: EdgeView, text: string, score: number): Recalled {
    return { address: edge.target, text, edge: edge.id, type: edge.type, time: edge.time, score, sources: this.sources(edge.target) }
  }
}

/**
 * A user's words as an FTS5 query: each word quoted (so FTS5 syntax in the input
 * is text, not operators), any word may match; BM25 ranks documents with more of them higher.
 *
 * @example
 * matchExpression('metric units?') // '"metric" OR "units"'
 */
export function matchExpression(query: string): string {
  const words = query.match(/[\p{L}\p{N}_]+/gu) ?? []
  if (words.length === 0) throw new NeuronError('EMPTY_QUERY', 'a recall query needs at least one word', { status: 400 })
  return words.slice(0, 32).map((word) => `"${word}"`).join(' OR ')
}
