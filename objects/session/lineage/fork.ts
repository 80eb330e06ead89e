/**
 * Forking a session: a new session whose history is a prefix of another's, up
 * to a past turn. The origin is only read; the fork copies the prefix's turn
 * events (the model's view of the past) into its own log and points its
 * conversation at the origin's turn with a `forks` edge, so its next turn
 * follows that old turn in the graph.
 *
 * A fork point must be a rest point: after it, no step is open, no tool runs and
 * no loop waits for a model turn (`NOT_A_TURN_BOUNDARY` otherwise).
 */
import { z } from 'zod'
import type { Caller } from '../../access/authorize.ts'
import { NeuronError } from '../../core/errors.ts'
import { type ChainState, chainStep, emptyChain } from '../../graph/turns.ts'
import type { Stored } from '../../ledger/envelope.ts'
import { Identifier } from '../../core/validate.ts'
import { EVENT, isEvent, isSessionEvent, type SessionEvent, type StoredEvent } from '../events/events.ts'
import { emptySession, reduceSession, type SessionState } from '../events/projection.ts'

/** `POST /v1/sessions/{id}/fork`: the origin's history sequence to fork after, and the new session's id. */
export const ForkSchema = z.strictObject({ at: z.number().int().positive(), id: Identifier.optional() })
/** `POST /v1/sessions/{id}/truncate`: the history sequence whose turn becomes the conversation's head. */
export const TruncateSchema = z.strictObject({ at: z.number().int().positive() })

/** Events a fork does not copy: its own creation, and the origin's drain bookkeeping. */
const NOT_COPIED = new Set<string>([EVENT.created, EVENT.drainStarted, EVENT.drainEnded])

/** What the origin's RPC surface gives a fork: authorized pages of its history. */
export interface Origin {
  history(caller: Caller, after: number, limit: number): Promise<{ items: Stored[]; next: number | null }>
}

/** Payload fields that name an artifact of the session's own store (epoch baselines, offered tools, kept output). */
const ARTIFACT_FIELDS = ['baseline', 'tools', 'artifact'] as const

/**
 * The artifacts copied events name, so a fork carries them into its own store:
 * an event that names a baseline or a tool list the fork does not hold could
 * not be read back.
 *
 * @example
 * artifactRefsOf([{ type: 'session.next.epoch.started', payload: { baseline: 'sha256:ab…' }, artifacts: [] }]) // ['sha256:ab…']
 */
export function artifactRefsOf(events: Pick<Stored, 'payload' | 'artifacts'>[]): string[] {
  const refs = new Set<string>()
  for (const event of events) {
    const payload = event.payload as Record<string, unknown> | null
    for (const field of ARTIFACT_FIELDS) {
      const ref = payload?.[field]
      if (typeof ref === 'string' && ref.startsWith('sha256:')) refs.add(ref)
    }
    for (const link of event.artifacts ?? []) refs.add(link.ref)
  }
  return [...refs]
}

/** Every event of the origin up to and including `at`, page by page. */
export async function* prefix(origin: Origin, caller: Caller, at: number): AsyncGenerator<Stored> {
  let after = 0
  for (;;) {
    const page = await origin.history(caller, after, 500)
    for (const event of page.items) {
      if (event.seq > at) return
      yield event
    }
    if (page.next === null) return
    after = page.next
  }
}

/** The origin as of `at`: its session state, its chain, and its creation event. */
export interface PrefixScan {
  state: SessionState
  chain: ChainState
  created: StoredEvent<typeof EVENT.created>
}

/**
 * Folds the origin's prefix and checks `at` is a rest point that exists.
 *
 * @example
 * const scan = await scanPrefix(prefix(origin, caller, 12), 'origin-id', 12)
 */
export async function scanPrefix(events: AsyncIterable<Stored>, origin: string, owner: string, at: number): Promise<PrefixScan> {
  let state = emptySession()
  let chain = emptyChain()
  let created: StoredEvent<typeof EVENT.created> | null = null
  for await (const event of events) {
    if (isEvent(event, EVENT.created)) created = event
    state = reduceSession(state, event)
    chain = chainStep(chain, event, origin, owner).state
  }
  if (!created || state.lastSeq !== at) {
    throw new NeuronError('UNKNOWN_SEQUENCE', `session ${origin} has no event ${at}`, { status: 404, details: { session: origin, at } })
  }
  if (state.loopOpen || state.step !== null || Object.keys(state.running).length > 0) {
    throw new NeuronError('NOT_A_TURN_BOUNDARY', `event ${at} is inside a turn; fork after a step has ended`, { status: 409, details: { at } })
  }
  return { state, chain, created }
}

/** The most events a fork copies: they are held in memory so the copy is written in one atomic step. */
export const MAX_FORK_EVENTS = 5_000

/**
 * The events a fork copies, in order; `FORK_TOO_LONG` past `MAX_FORK_EVENTS`. A session's log holds
 * only its vocabulary's events (test/session/event-schemas.test.ts), so each copy is typed by it.
 */
export async function copiesOf(events: AsyncIterable<Stored>, scan: PrefixScan): Promise<(Stored & SessionEvent)[]> {
  const copies: (Stored & SessionEvent)[] = []
  for await (const event of events) {
    if (!isSessionEvent(event) || !copied(event, scan)) continue
    if (copies.length === MAX_FORK_EVENTS) {
      throw new NeuronError('FORK_TOO_LONG', `a fork copies at most ${MAX_FORK_EVENTS} events`, { status: 413, details: { limit: MAX_FORK_EVENTS } })
    }
    copies.push(event)
  }
  return copies
}

/** Whether the fork copies an event: turn events yes; bookkeeping and prompts never promoted before `at`, no. */
function copied(event: Stored, scan: PrefixScan): boolean {
  if (NOT_COPIED.has(event.type)) return false
  if (isEvent(event, EVENT.admitted)) {
    const { messageId } = event.payload
    return !scan.state.pending.some((row) => row.messageId === messageId)
  }
  return true
}
