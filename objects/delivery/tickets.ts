/**
 * One-use stream tickets. The gate mints a short-lived ticket for a socket or stream (browsers
 * cannot set headers on a WebSocket); the object spends it when the stream opens (endpoint.ts), so a ticket
 * seen twice is refused. A spent ticket's id is remembered until it would have expired anyway,
 * under a key that sorts by expiry, so each use also forgets a bounded batch of expired ones and
 * the store never grows with traffic.
 *
 * @example
 * spendTicket(ctx.storage.kv, request.headers.get(TICKET_HEADER)) // throws TICKET_REPLAYED the second time
 */
import { NeuronError } from '../core/errors.ts'

/** Expired ids forgotten per use: enough to keep up with any rate of new tickets. */
const FORGET_PER_USE = 16

/** Spends the ticket in `header` (the gate's `{ jti, exp }`); no header is a bearer-authenticated stream. */
export function spendTicket(kv: SyncKvStorage, header: string | null): void {
  if (!header) return
  const { jti, exp } = JSON.parse(header) as { jti: string; exp: number }
  const key = `ticket:${expiryKey(exp)}:${jti}`
  if (kv.get(key) !== undefined) throw new NeuronError('TICKET_REPLAYED', 'this ticket was already used', { status: 401 })
  kv.put(key, 1)
  const expired = kv.list({ prefix: 'ticket:', end: `ticket:${expiryKey(Date.now() / 1000)}`, limit: FORGET_PER_USE })
  for (const [stale] of expired) kv.delete(stale)
}

/** Seconds since the epoch as a fixed-width key, so keys sort by time. */
function expiryKey(seconds: number): string {
  return String(Math.floor(seconds)).padStart(12, '0')
}
