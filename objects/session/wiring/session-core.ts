/**
 * The session core: the one small vocabulary every session module is written against. The session
 * object builds it once; each module (creating, admitting prompts and interrupts, an orchestration's
 * messages, forking and truncating, what recording an event sets off, the runner's wiring, the
 * toolset) declares the `Pick<SessionCore, …>` slice it reads, so every module sees the same name,
 * state and append path, and a new module names what exists instead of restating another host type.
 *
 * Members that are the object's parts (the chain writer, the host tools, the agent link) are read
 * when a module runs, not when the core is built, so the core can be built before them.
 *
 * @example
 * type IntakeHost = Pick<SessionCore, 'name' | 'receipts' | 'state' | 'record' | 'wake' | 'interruptRunner'>
 * admitPrompt(core, prompt, headers)
 * await forkSession(core, caller, 'origin', { at: 12 })
 */
import type { Env } from '../../core/env.ts'
import type { Journal } from '../../core/journal.ts'
import type { Stored } from '../../ledger/envelope.ts'
import type { Header } from '../../ledger/headers.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import type { Catalog, ResolvedModel } from '../../llm/catalog.ts'
import type { AgentLink } from '../agent/agent.ts'
import type { Delta } from '../events/air.ts'
import type { ChainWriter } from '../lineage/chain-writer.ts'
import type { EventPayloads, EventType } from '../events/events.ts'
import type { HostTools } from '../host-tools/host-tools.ts'
import type { SessionState } from '../events/projection.ts'
import type { Receipts } from '../intake/receipts.ts'
import type { SessionWorkspace } from '../workspace/workspace.ts'

/** What a session is to its modules. */
export interface SessionCore {
  /** The session's id (an orchestration agent's name says so). */
  readonly name: string
  /** The session's held address: `session.{name}`. */
  readonly topic: string
  readonly env: Env
  readonly ctx: DurableObjectState
  readonly storage: DurableObjectStorage
  /** The session's log, bus and projection (objects/core/journal.ts). */
  readonly journal: Journal<SessionState>
  readonly ledger: Ledger
  /** Other sessions (a fork reads its origin). */
  readonly sessions: Env['SESSIONS']
  /** The admission index: message id → sequence and digest. */
  readonly receipts: Receipts
  /** The conversation chain's writer into the owner's graph. */
  readonly chain: ChainWriter
  /** Tools a browser holding one of the session's sockets offers. */
  readonly hostTools: HostTools
  /** Set when this session is an orchestration's agent. */
  readonly agent: AgentLink | null
  /** The env's catalog (its default model) and the owner's stored keys over it. */
  readonly models: { default: Catalog['default']; resolve(owner: string, ref: string): Promise<ResolvedModel> }
  /** The projection: the fold of every event so far. */
  state(): SessionState
  /** The session's owner ('' before `created`). */
  owner(): string
  /** A turn is running or prompts wait: a truncation would cut under it. */
  busy(): boolean
  /** Stores, delivers and folds an event with its follow-ups (metering, graph, agent). */
  record<T extends EventType>(type: T, payload: EventPayloads[T], headers?: Header[]): Stored
  /** Stores, delivers and folds an event without follow-ups (a fork's copies are history, not new work). */
  publish<T extends EventType>(type: T, payload: EventPayloads[T], headers?: Header[]): Stored
  /** Publishes a delta on the session's air (delivered, never stored). */
  air(delta: Delta): void
  /** Starts (or continues) the drain; never waits for execution. */
  wake(): void
  /** Stops the running turn if it is `step`. */
  interruptRunner(step: string, request: string, reason: string): void
  /** The session's files: a fork starts from the origin's tree, a truncation takes the tree back. */
  readonly workspace: SessionWorkspace
}
