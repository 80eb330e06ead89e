/**
 * How the graph's rows read back as views. An edge is read by joining its index row (`edge`) to
 * its envelope in `log`, and its retirement, if any (`retired` → the retiring envelope), in the
 * same select: one column list (`EDGE_COLUMNS`) and one row mapping (`toEdge`) serve every edge
 * query, so a query cannot forget the retirement or read it differently. A node is its address's
 * first `node` envelope (`toNode`).
 */
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import type { EdgeView, NodeView, Retirement } from './node-state.ts'

export const EDGE_COLUMNS = `l.id, l.seq, e.type, e.source, e.target, l.author, l.time, l.parent, l.payload,
  rl.id as r_id, rl.payload as r_payload, rl.author as r_author, rl.time as r_time`
const RETIREMENT = `left join retired r on r.edge = e.seq left join log rl on rl.seq = r.by`
/** Edges with their envelopes and retirements; `r.edge is null` keeps the live ones. */
export const EDGE_FROM = `edge e join log l on l.seq = e.seq ${RETIREMENT}`
/** One edge by its sequence: the envelope names the edge row's key (its topic is the source, its type `edge.{type}`). */
export const EDGE_AT = `log l join edge e on e.source = l.topic and e.type = substr(l.type, 6) and e.seq = l.seq ${RETIREMENT} where l.seq = ?`
/** The condition that edge `e` is live, for walks that join `edge` without the retirement. */
export const LIVE = `not exists (select 1 from retired x where x.edge = e.seq)`

/** One row of `select ${EDGE_COLUMNS}`: the view's columns, its payload as stored text, and the retiring envelope's. */
export type EdgeRow = Omit<EdgeView, 'payload' | 'retired'> & {
  payload: string | null
  r_id: string | null
  r_payload: string | null
  r_author: string | null
  r_time: number | null
}

/**
 * A node's view from its `node` envelope.
 *
 * @example
 * const node = toNode(ledger.byTopic('node.note.n1', { limit: 1 }).items[0]!)
 */
export function toNode(envelope: Stored): NodeView {
  const payload = envelope.payload as { kind: string; id: string; text?: string; data?: Json }
  return {
    address: envelope.topic,
    kind: payload.kind,
    id: payload.id,
    text: payload.text ?? null,
    data: payload.data ?? null,
    author: envelope.author,
    time: envelope.time,
    envelope: envelope.id,
  }
}

/**
 * An edge's view from one row of `EDGE_COLUMNS`, its retirement included.
 *
 * @example
 * const edges = sql.exec<EdgeRow>(`select ${EDGE_COLUMNS} from ${EDGE_FROM} where e.source = ?`, address).toArray().map(toEdge)
 */
export function toEdge(row: EdgeRow): EdgeView {
  let retired: Retirement | null = null
  if (row.r_id !== null) {
    const p = JSON.parse(row.r_payload!) as { how: Retirement['how']; reason: string; by: string | null }
    retired = { id: row.r_id, how: p.how, reason: p.reason, by: p.by, author: row.r_author!, time: row.r_time! }
  }
  return {
    id: row.id,
    seq: row.seq,
    type: row.type,
    source: row.source,
    target: row.target,
    author: row.author,
    time: row.time,
    parent: row.parent,
    payload: row.payload === null ? null : (JSON.parse(row.payload) as Json),
    retired,
  }
}
