/**
 * A session's lineage: forking a new session from a past turn of another, and truncating a
 * session's own conversation back to a past turn. Both read a prefix of a history up to a rest
 * point (fork.ts) and write the session's events; the events name the old turn, and the chain
 * writer points the conversation in the graph at it (`forks` / `truncates` edges), so the next
 * turn follows it. Nothing is deleted: a truncation records the cut as an event, and the
 * model's history leaves the cut range out.
 *
 * One request never records an event and then fails: everything that can refuse, the graph's
 * rules for the edge included (`ChainWriter.check`), is asked before the first write.
 *
 * The session object hands this module a port (`LineageHost`) with exactly what it needs.
 *
 * @example
 * await forkSession(host, caller, 'origin-session', { at: 12 })
 * await truncateSession(host, caller, { at: 7 }) // { head, truncated }
 */
import { authorize, type Caller, gateHeaders } from '../../access/authorize.ts'
import { NeuronError } from '../../core/errors.ts'
import { conversationOf, type ForkedFrom, openingOps, truncationOps } from '../../graph/turns.ts'
import type { Stored } from '../../ledger/envelope.ts'
import { current } from '../../ledger/headers.ts'
import { settled } from '../../core/rpc.ts'
import { parseOrThrow } from '../../core/validate.ts'
import { EVENT } from '../events/events.ts'
import { artifactRefsOf, copiesOf, ForkSchema, prefix, scanPrefix, TruncateSchema } from './fork.ts'
import { epochKey, messagesAt } from './truncation.ts'
import { treeAt } from '../workspace/workspace.ts'
import type { SessionCore } from '../wiring/session-core.ts'

/** What forking and truncating need of the session object. */
export type LineageHost = Pick<SessionCore, 'name' | 'topic' | 'ledger' | 'storage' | 'sessions' | 'chain' | 'state' | 'busy' | 'record' | 'publish' | 'workspace'>

/** The error for creating a session that already exists. */
export function sessionExists(id: string): NeuronError {
  return new NeuronError('SESSION_EXISTS', `a session ${id} already exists`, { status: 409, details: { id } })
}

/** Creates the host's session as a fork of `from` after its event `at` (`input: { at }`), owned by `caller`. */
export async function forkSession(host: LineageHost, caller: Caller, from: string, input: unknown): Promise<void> {
  const { at } = parseOrThrow(ForkSchema, input, 'INVALID_REQUEST')
  if (host.state().exists) throw sessionExists(host.name)
  const origin = settled(host.sessions.getByName(from))
  const scan = await scanPrefix(prefix(origin, caller, at), from, caller.id, at)
  const copies = await copiesOf(prefix(origin, caller, at), scan)
  // The fork continues the origin's turn only in the graph that holds it: its owner's. Forked by
  // someone else, the copies become the fork's own turns in the forker's graph.
  const forkedFrom: ForkedFrom = scan.state.owner === caller.id ? { session: from, at, head: scan.chain.last ?? conversationOf(from) } : { session: from, at }
  if (forkedFrom.head) {
    // The origin's turns up to now reach the graph before the fork is checked against them.
    await origin.writeChain(caller)
  }
  const base = scan.created.payload
  await host.chain.check(openingOps(host.name, base.title, caller.id, Date.now(), forkedFrom), caller)
  // The artifacts the copies name come first, one at a time: content-addressed, so a fork that
  // fails after this leaves at most blobs nothing names, never an event naming a missing blob.
  for (const ref of artifactRefsOf(copies)) {
    const { bytes, kind } = await origin.readArtifact(caller, ref)
    host.ledger.artifacts.put(bytes, kind ?? undefined)
  }
  // The origin's tree at the fork point, by content id: its blobs stay the origin's, read through.
  const tree = await treeAt(origin, caller, at)
  // Another request may have created this session while the prefix was read.
  if (host.state().exists) throw sessionExists(host.name)
  // From here to the last copy nothing awaits: the fork is written whole or not at all.
  const decision = authorize({ owner: caller.id, share: [] }, caller)
  host.record(EVENT.created, { ...base, owner: caller.id, share: [] }, [...gateHeaders(caller, decision), { key: 'forked-from', value: { ...forkedFrom } }])
  // Copies are history, not new work: they are not metered again. Each names the event it copies
  // (the first original, for a copy of a copy), so the chain knows it as that turn.
  for (const event of copies) host.publish(event.type, event.payload, [{ key: 'copied-from', value: originOf(event) }])
  host.workspace.inherit(from, at, tree)
  await writeChainNow(host)
}

/**
 * Truncates the host's conversation back to event `at` (`input: { at }`), a rest point at or after
 * the current context epoch: a `truncated` event records the cut and the turn the chain's head
 * moves back to, and the chain writer draws the `truncates` edge from it. The caller is already
 * authorized.
 */
export async function truncateSession(host: LineageHost, caller: Caller, input: unknown): Promise<{ head: string; truncated: number }> {
  const { at } = parseOrThrow(TruncateSchema, input, 'INVALID_REQUEST')
  if (host.busy()) throw new NeuronError('SESSION_BUSY', 'truncate an idle session', { status: 409 })
  const self = { history: async (_: Caller, after: number, limit: number) => host.ledger.byTopic(host.topic, { after, limit }) }
  const scan = await scanPrefix(prefix(self, caller, at), host.name, host.state().owner, at)
  const head = scan.chain.last ?? conversationOf(host.name)
  const epoch = host.state().epoch
  if (at < epochKey(epoch)) {
    throw new NeuronError('TRUNCATE_COMPACTED', `the history up to event ${epochKey(epoch)} was compacted; fork from event ${at} instead`, {
      status: 409,
      details: { at, compactedThrough: epochKey(epoch) },
    })
  }
  // The session's own turns reach the graph first, so the check sees the turn the head moves to.
  await host.chain.sync()
  await host.chain.check(truncationOps(host.name, head, at, host.state().owner, Date.now()))
  // A turn may have been admitted while the graph was asked.
  if (host.busy()) throw new NeuronError('SESSION_BUSY', 'truncate an idle session', { status: 409 })
  const keep = messagesAt(host.storage, host.topic, at, epoch)
  const drop = messagesAt(host.storage, host.topic, host.state().lastSeq, epoch)
  const event = host.record(EVENT.truncated, { at, keep, drop, epoch: epochKey(epoch), head })
  // The tree goes back with the conversation, in the same synchronous write (new changes; blobs shared).
  host.workspace.revertTo(at, `truncate:${event.seq}`)
  await writeChainNow(host)
  return { head, truncated: event.seq }
}

/** The event a copy stands for: the first original, through any number of forks. */
function originOf(event: Stored): string {
  const copied = current(event.headers, 'copied-from')
  return typeof copied === 'string' ? copied : event.id
}

/**
 * The chain after a fork or truncation, written before the answer when the graph takes it; the
 * event is recorded either way, so a graph that fails now gets it on the next drain or wake.
 */
async function writeChainNow(host: LineageHost): Promise<void> {
  await host.chain.sync().catch((error: unknown) => console.error('graph: conversation chain not written yet', { session: host.name, error }))
}
