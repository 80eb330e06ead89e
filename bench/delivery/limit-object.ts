/**
 * The physical limit of a durable event's delivery, for the session delivery bench only (never
 * deployed): one object that, for each WebSocket message, INSERTs the message's bytes as a row
 * of a table with the session log's own DDL (the ledger migrations every session applies) and
 * then sends the same bytes back on the socket. The send goes through the output gate like every
 * session frame: workerd holds it until the write is durable, so the frame never leaves before
 * its row commits. No validation, no hashing, no JSON: what is left is the floor under
 * "append a durable event, then hand it to a subscriber".
 */
import { DurableObject } from 'cloudflare:workers'
import { migrate, tables } from '../../objects/core/migrations.ts'
import { LEDGER_TABLES } from '../../objects/ledger/tables.ts'

const INSERT =
  'insert into log (seq, id, topic, type, parent, author, time, schema, headers, payload, payload_ref, artifacts) values (?,?,?,?,?,?,?,?,?,?,?,?)'

/**
 * @example
 * // bench/delivery/worker.ts routes `GET /__bench/limit/ws` here; each message comes back once stored.
 * ws.send(frame) // → the same frame, after its row is durable
 */
export class DeliveryLimitObject extends DurableObject {
  #seq = 0

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env)
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, tables([LEDGER_TABLES]))
      this.#seq = ctx.storage.sql.exec<{ seq: number }>('select coalesce(max(seq), 0) as seq from log').one().seq
    })
  }

  override fetch(): Response {
    const { 0: client, 1: server } = new WebSocketPair()
    this.ctx.acceptWebSocket(server)
    return new Response(null, { status: 101, webSocket: client })
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    const frame = typeof message === 'string' ? message : new TextDecoder().decode(message)
    const seq = ++this.#seq
    this.ctx.storage.sql.exec(INSERT, seq, `limit-${seq}`, 'session.limit', 'session.next.admitted', null, 'object:session', Date.now(), null, '[]', frame, null, '[]')
    ws.send(frame)
  }
}
