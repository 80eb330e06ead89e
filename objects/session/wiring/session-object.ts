/**
 * SessionObject: one Durable Object per session (spec §3). It composes the
 * ledger, the bus, the projection fold, access, the runner, the tools and the
 * subscribers; each of those lives in its own module. Everything the session
 * says crosses its bus: events on its held address, deltas on its air. Every public method
 * takes the caller the gate authenticated and authorizes it first. Events are recorded on one
 * path (`record`): stored and delivered, folded, then what they set off (follow-ups.ts).
 *
 * Longer than a module here should be, for one reason: workerd calls a Durable Object's RPC
 * methods on the class itself, so the whole RPC surface (about thirty methods, each a check and
 * one call into the module that does the work) and the constructor that wires those modules stand
 * in this one file. Nothing else belongs here: a new behaviour goes in its stage folder and
 * reaches the object through the session core (session-core.ts).
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../../core/env.ts'
import { type Caller, gateHeaders } from '../../access/authorize.ts'
import { NeuronError } from '../../core/errors.ts'
import { HOST_CALL_TIMEOUT_MS } from '../../core/limits.ts'
import { Timers } from '../../core/timers.ts'
import type { GraphObject } from '../../graph/graph-object.ts'
import { chainStep, conversationOf, emptyChain } from '../../graph/turns.ts'
import { Journal } from '../../core/journal.ts'
import { type Bus, on } from '../../ledger/bus.ts'
import type { Stored } from '../../ledger/envelope.ts'
import type { Header } from '../../ledger/headers.ts'
import type { Json } from '../../ledger/json.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import { migrate, tables } from '../../core/migrations.ts'
import { LEDGER_TABLES } from '../../ledger/tables.ts'
import type { Page } from '../../ledger/page.ts'
import type { Catalog } from '../../llm/catalog.ts'
import { composeCatalog, type EnvVars } from '../../llm/compose.ts'
import { answerFailures } from '../../core/rpc.ts'
import { ToolRegistry } from '../../tools/registry.ts'
import type { McpServerStatus, McpToolset } from '../../tools/mcp/toolset.ts'
import { parseOrThrow } from '../../core/validate.ts'
import { type SessionSummary, summaryOf } from '../events/summary.ts'
import { SessionAccess } from './access.ts'
import type { Receipt } from '../intake/admission.ts'
import { admitPrompt, requestInterrupt } from '../intake/intake.ts'
import type { SessionCore } from './session-core.ts'
import { InterruptSchema, type InterruptReply } from '../intake/control.ts'
import { defaultSources } from '../turn/context-sources.ts'
import { OwnerCatalog } from '../../llm/owner-catalog.ts'
import { contextMemory } from '../turn/authority.ts'
import { Creator } from './creator.ts'
import { SessionProfile } from './session-profile.ts'
import { configOf } from '../../config/current.ts'
import { FollowUps } from './follow-ups.ts'
import { SessionConfig } from './session-config.ts'
import type { ConfigVersion } from '../../config/versions.ts'
import { ChainWriter } from '../lineage/chain-writer.ts'
import type { EventPayloads, EventType } from '../events/events.ts'
import { History } from '../turn/history.ts'
import { forkSession, truncateSession } from '../lineage/lineage.ts'
import { emptySession, reduceSession, type SessionState, type SessionView, viewOf } from '../events/projection.ts'
import { Receipts } from '../intake/receipts.ts'
import { recover } from '../turn/recovery.ts'
import { sessionSnapshots } from '../events/snapshot.ts'
import type { Delta } from '../events/air.ts'
import type { Runner } from '../turn/runner.ts'
import { sessionRunner } from '../turn/session-runner.ts'
import { HostTools } from '../host-tools/host-tools.ts'
import { type AnswerResult, Approvals, PermissionAnswerSchema, type PendingPermission } from '../../permission/approvals.ts'
import { ArtifactRef, PromptSchema } from '../intake/schemas.ts'
import { openStream, socketGone, socketMessage, type StreamHost } from '../../delivery/endpoint.ts'
import { Subscribers } from '../../delivery/subscribers.ts'
import { OpenStep, type StepSnapshot } from '../turn/open-step.ts'
import { sessionStream } from './socket.ts'
import type { ClientMessage } from './ws-protocol.ts'
import { Watchdog } from '../turn/watchdog.ts'
import { Wakeup } from '../turn/wakeup.ts'
import type { BridgeDraft } from '../../agent-link/bridge.ts'
import { type AgentLink, agentAddressOf, agentTurns } from '../agent/agent.ts'
import { receiveAgentMessage } from '../agent/agent-inbox.ts'
import { composeToolset } from './toolset.ts'
import { SessionWorkspace } from '../workspace/workspace.ts'
import { WORKSPACE_TABLES } from '../../workspace/tables.ts'
import { WorkspaceCalls } from '../../workspace/calls.ts'
import { type Extensions, NO_EXTENSIONS } from '../../extend/extensions.ts'
import { SessionSchedules } from '../schedules/schedules.ts'
import { SessionHooks } from '../hooks/hooks.ts'
import type { DeliveryHeaders, Hook } from '../hooks/schema.ts'
import type { Schedule } from '../../schedules/fold.ts'

/** The session's tables: the embedded ledger's and its workspace's. */
export const TABLES = tables([LEDGER_TABLES, WORKSPACE_TABLES])

export class SessionObject extends DurableObject<Env> {
  /** A deployment's own tools and catalog rows; `createNeuron` (worker/neuron.ts) subclasses to set them. */
  static readonly extensions: Extensions = NO_EXTENSIONS
  /** The session's log, its bus and its projection: the one path an event is recorded on (objects/core/journal.ts). */
  protected readonly journal: Journal<SessionState>
  protected readonly ledger: Ledger
  protected readonly catalog: Catalog
  /** The catalog with the owner's stored provider keys, for providers the env leaves unkeyed. */
  private readonly owned: OwnerCatalog
  /** This session's config overrides, merged over its owner's document. */
  private readonly overrides: SessionConfig
  protected readonly tools = new ToolRegistry()
  /** The tools of the MCP servers the session's config lists (objects/tools/mcp/). */
  protected readonly mcp: McpToolset
  /** What the model is told besides the conversation; `memory.pinned` and the like register here. */
  protected readonly sources = defaultSources()
  protected readonly runner: Runner
  protected readonly access: SessionAccess
  protected readonly subscribers: Subscribers<Delta, StepSnapshot>
  protected readonly bus: Bus
  protected readonly receipts: Receipts
  protected readonly chain: ChainWriter
  /** Who created the session, from its `created` event (creator.ts). */
  private readonly creator: Creator
  /** The agent profile the session runs (session-profile.ts). */
  private readonly profile: SessionProfile
  /** What recording an event sets off: metering, the chain, host calls, the orchestration (follow-ups.ts). */
  private readonly followUps: FollowUps
  /** What the model is shown, folded as events are recorded (see history.ts). */
  private readonly transcript: History
  /** Set when this session is an orchestration's agent (its name says so). */
  protected readonly agent: AgentLink | null
  /** Tools a browser holding one of this session's sockets offers (docs/host-tools.md). */
  protected readonly hostTools: HostTools
  /** The permission requests of this session's tool calls, and their answers (objects/permission/approvals.ts). */
  protected readonly approvals: Approvals
  /** When the runner starts, with the alarm that revives a drain evicted mid-work (wakeup.ts). */
  private readonly wakeup: Wakeup
  /**
   * The session's named timers over its one alarm (objects/core/timers.ts): a timer is one line
   * here. The wake-up and the watchdog are set again from the folded state on every wake, so
   * they live in the alarm only; a permission request's expiry is a deadline nothing else
   * remembers once the isolate that parked the call is gone, so it is durable; so is the earliest
   * schedule's next fire (schedules.ts).
   */
  protected readonly timers = new Timers(
    this.ctx.storage,
    {
      wakeup: { keep: 'revival', run: () => this.wakeup.alarm() },
      watchdog: { keep: 'revival', run: () => this.wakeup.alarm() },
      permissions: { keep: 'durable', run: () => this.expirePermissions() },
      schedules: { keep: 'durable', run: () => this.schedules.fire() },
    },
    () => this.clock(),
  )
  /** The clock the timers and the schedules read; a test sets its own. */
  protected clock: () => number = Date.now
  /** The session's schedules: prompts admitted at their times (schedules.ts). */
  private readonly schedules: SessionSchedules
  /** Outside senders' signed deliveries, admitted as prompts (hooks.ts). */
  private readonly hooks: SessionHooks
  /** What every session module reads of this object, built once (session-core.ts). */
  private readonly core: SessionCore
  /** What the stream fetch and the socket handlers use of this object (socket.ts, delivery/endpoint.ts). */
  private readonly streams: StreamHost<ClientMessage>

  /** The session's files, which the work tools, the workspace routes and lineage act on (workspace.ts). */
  private readonly workspace: SessionWorkspace
  /** The workspace's RPC surface, authorized (objects/workspace/calls.ts). */
  private readonly files: WorkspaceCalls

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.receipts = new Receipts(ctx.storage.kv)
    // The session's address is held, so its events are stored before delivery; `.air` is not:
    // deltas reach whoever listens and are gone. Each event's causal parent is the one before it.
    this.journal = new Journal({
      storage: ctx.storage,
      topic: this.topic,
      author: 'object:session',
      reduce: reduceSession,
      initial: emptySession,
      parent: (state) => state.lastId,
      snapshots: sessionSnapshots(ctx.storage.kv, this.receipts),
    })
    this.ledger = this.journal.ledger
    this.bus = this.journal.bus
    this.workspace = new SessionWorkspace({ ledger: this.ledger, storage: ctx.storage, topic: this.topic, sessions: env.SESSIONS })
    const extensions = (new.target as typeof SessionObject).extensions
    this.catalog = composeCatalog(env as unknown as EnvVars, extensions.rows)
    this.owned = new OwnerCatalog(env, this.catalog, extensions.rows)
    const self = this
    // The parts below are read when a module runs, so the core is built before them.
    const core: SessionCore = (this.core = {
      name: this.name,
      topic: this.topic,
      env,
      ctx,
      storage: ctx.storage,
      journal: this.journal,
      ledger: this.ledger,
      sessions: env.SESSIONS,
      receipts: this.receipts,
      get chain() {
        return self.chain
      },
      get hostTools() {
        return self.hostTools
      },
      get agent() {
        return self.agent
      },
      models: { default: () => this.catalog.default(), resolve: (owner, ref) => this.owned.resolve(owner, ref) },
      state: () => this.state,
      owner: () => this.state.owner,
      busy: () => this.runner.busy || this.state.pending.length > 0,
      record: (type, payload, headers) => this.record(type, payload, headers),
      publish: (type, payload, headers) => this.publish(type, payload, headers),
      air: (delta) => void this.bus.publish(this.air, delta.type, delta),
      wake: () => this.wakeup.afterCommit(),
      interruptRunner: (step, request, reason) => void this.runner.interrupt(step, request, reason),
      workspace: this.workspace,
    })
    this.transcript = new History(this.ledger, this.topic)
    this.profile = new SessionProfile({
      name: () => this.state.agent,
      owner: () => this.state.owner,
      deployment: extensions.agents,
      documentOf: (owner) => configOf(env, owner),
    })
    const { ledger, topic, name, state, models, record } = core
    this.creator = new Creator({ ledger, topic, name, state, models, record, profile: this.profile })
    this.access = new SessionAccess(this.ledger, `${this.topic}.denials`, () => this.name, agentAddressOf(this.name) !== null)
    this.subscribers = new Subscribers(ctx, this.ledger, this.topic, () => this.state.lastSeq, new OpenStep())
    this.bus.subscribe(on(this.topic), (envelope) => this.subscribers.broadcast({ kind: 'event', envelope: envelope as Stored }))
    this.bus.subscribe(on(this.air), (envelope) => this.subscribers.broadcast({ kind: 'delta', delta: envelope.payload as unknown as Delta }))
    this.approvals = new Approvals({
      state: () => this.state,
      record: (type, payload) => this.record(type, payload),
      layers: () => this.overrides.permissionLayers(),
      addRules: (author, rules) => this.overrides.addPermissionRules(author, rules),
      expires: (at) => void this.timers.set('permissions', Math.min(at, this.timers.at('permissions') ?? at)),
    })
    this.runner = sessionRunner({
      name: core.name,
      topic: core.topic,
      ledger: core.ledger,
      state: core.state,
      record: core.record,
      air: core.air,
      transcript: this.transcript,
      sources: this.sources,
      catalog: this.catalog,
      owned: this.owned,
      tools: this.tools,
      approvals: this.approvals,
      grant: () => this.creator.grant(),
      profile: this.profile,
    })
    // The owner's document with this session's overrides laid over it (session-config.ts).
    this.overrides = new SessionConfig(
      this.ledger,
      this.topic,
      () => this.state.owner,
      () => this.profile.documentOf(this.state.owner),
      () => this.profile.permission(),
    )
    const composed = composeToolset({
      env,
      name: this.name,
      owner: core.owner,
      tools: this.tools,
      custom: extensions.tools,
      sources: this.sources,
      config: () => this.overrides.effective(),
      contextMemory: () => (this.state.exists ? contextMemory(this.creator.grant()) : null),
      conversation: (graph, caller) => this.openConversation(graph, caller),
      deadLetter: (draft, error) =>
        void this.ledger.append({ topic: `${this.topic}.dead`, type: 'orchestration.dead-letter', author: 'stage:bridge', payload: { draft, error } }),
      agentTurns: agentTurns(ctx.storage.kv, this.receipts, this.ledger, this.topic),
      workspace: this.workspace,
      profile: this.profile,
      schedules: {
        list: () => this.schedules.list(this.ownerCaller()),
        create: (input) => this.schedules.create(this.ownerCaller(), input),
        delete: (id) => this.schedules.delete(this.ownerCaller(), id),
      },
    })
    this.mcp = composed.mcp
    this.agent = composed.agent
    const toolsets = { refresh: async () => void (await Promise.all([composed.mcp.refresh(), composed.modules.refresh()])) }
    this.wakeup = new Wakeup({ storage: ctx.storage, watchdog: new Watchdog(this.timers), toolsets, profile: this.profile, runner: this.runner, hasWork: () => this.hasWork() })
    this.chain = new ChainWriter({ ledger: this.ledger, storage: ctx.storage, env, topic: this.topic, session: () => this.name, owner: () => this.creator.owner() })
    this.hostTools = new HostTools({
      ctx,
      tools: this.tools,
      owner: () => this.state.owner,
      air: core.air,
      timeoutMs: Number(env.HOST_CALL_TIMEOUT_MS) || HOST_CALL_TIMEOUT_MS,
    })
    this.followUps = new FollowUps(core)
    this.streams = sessionStream({
      kv: ctx.storage.kv,
      subscribers: this.subscribers,
      hostTools: this.hostTools,
      read: (caller) => void this.access.check(this.state, caller, 'read'),
      // The socket validated the prompt already; HTTP's `prompt` below validates its body.
      prompt: (caller, input) => admitPrompt(core, input, this.access.promptHeaders(this.state, caller)),
      interrupt: (caller, body) => this.interrupt(caller, body),
      answerPermission: (caller, answer) => this.answerPermission(caller, answer),
    })
    this.schedules = new SessionSchedules({
      ...core,
      timers: this.timers,
      now: () => this.clock(),
      check: (caller, action) => void this.access.check(this.state, caller, action),
      promptHeaders: (caller) => this.access.promptHeaders(this.state, caller),
    })
    this.hooks = new SessionHooks({
      ...core,
      secret: env.CREDENTIALS_SECRET,
      now: () => this.clock(),
      check: (caller, action) => void this.access.check(this.state, caller, action),
    })
    this.files = new WorkspaceCalls({ workspace: this.workspace, check: (caller, action) => void this.access.check(this.state, caller, action), owner: () => this.state.owner })
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, TABLES)
      // Chunks of an upload a crash cut short: no upload runs before this wake's first call.
      this.ledger.artifacts.sweep()
      this.journal.restore()
      // Offers of sockets that survived hibernation are registered again before anything runs.
      const hostCalls = this.hostTools.restore()
      if (recover(this.state, (type, payload) => this.record(type, payload), hostCalls) || this.hasWork()) {
        await this.timers.set('wakeup', Date.now())
      }
      // Turns a crash kept from the graph are written on this wake.
      if (this.state.exists) this.followUps.writeChainLater()
    })
  }

  // ── RPC surface (the worker's routes call these) ─────────────────────────

  /** Creates the session owned by `caller`; the same request again is a no-op, a different one a conflict (creator.ts). */
  create(caller: Caller, input: unknown): Promise<{ session: SessionView; created: boolean }> {
    return this.creator.create(caller, input)
  }

  /** The MCP servers this session's config lists, as it last listed them (a due listing runs first). */
  async mcpServers(caller: Caller): Promise<{ items: McpServerStatus[] }> {
    this.access.check(this.state, caller, 'read')
    await this.mcp.refresh()
    return { items: this.mcp.status() }
  }

  /** This session's config overrides (version 0: none), for a caller the policy allows. */
  config(caller: Caller): ConfigVersion {
    this.access.check(this.state, caller, 'read')
    return this.overrides.current()
  }

  /** Stores a new version of the overrides (the owner's only: session-config.ts); it reaches the model at the next turn boundary. */
  putConfig(caller: Caller, input: unknown, ifMatch?: string): ConfigVersion {
    this.access.check(this.state, caller, 'configure')
    return this.overrides.put(caller.id, input, ifMatch)
  }

  /** The projection, for a caller the session's policy allows. */
  view(caller: Caller): SessionView {
    this.access.check(this.state, caller, 'read')
    return viewOf(this.name, this.state)
  }

  /** What a session list shows of its live state (events/summary.ts), for a caller the policy allows. */
  summary(caller: Caller): SessionSummary {
    this.access.check(this.state, caller, 'read')
    return summaryOf(this.state)
  }

  /** Admits a prompt durably and wakes the runner; never waits for execution. */
  prompt(caller: Caller, input: unknown): { receipt: Receipt; duplicate: boolean } {
    const headers = this.access.promptHeaders(this.state, caller)
    return admitPrompt(this.core, parseOrThrow(PromptSchema, input, 'INVALID_REQUEST'), headers)
  }

  /**
   * Stops the running turn the request names (default: the one running now); pending prompts stay
   * admitted. The control entry is recorded before it acts; idle, a target that is not running, or
   * a retry of the same id is a no-op that says so.
   */
  interrupt(caller: Caller, input: unknown = {}): InterruptReply {
    const decision = this.access.check(this.state, caller, 'interrupt')
    return requestInterrupt(this.core, caller.id, parseOrThrow(InterruptSchema, input ?? {}, 'INVALID_REQUEST'), gateHeaders(caller, decision))
  }

  /** The permission requests waiting for the owner's answer, oldest first (objects/permission/approvals.ts). */
  permissions(caller: Caller): { items: PendingPermission[] } {
    this.access.check(this.state, caller, 'read')
    return { items: this.approvals.pending() }
  }

  /** The owner's answer to a pending permission request: the parked call then runs or fails `PERMISSION_DENIED`. */
  answerPermission(caller: Caller, input: unknown): AnswerResult {
    this.access.check(this.state, caller, 'read')
    return this.approvals.answer(caller.id, parseOrThrow(PermissionAnswerSchema, input, 'INVALID_REQUEST'))
  }

  /** The bridge's receiving end for an agent session: assign, prompt or cancel (agent-inbox.ts). */
  receive(draft: BridgeDraft): Promise<{ duplicate: boolean; answer: Json }> {
    return receiveAgentMessage(this.core, draft)
  }

  /** A page of durable events after `after`. */
  history(caller: Caller, after = 0, limit = 100): Page {
    this.access.check(this.state, caller, 'read')
    return this.ledger.byTopic(this.topic, { after, limit })
  }

  /** The denied attempts on this session; only its owner may list them. */
  denials(caller: Caller, after = 0, limit = 100) {
    this.access.check(this.state, caller, 'read')
    if (caller.id !== this.state.owner) throw new NeuronError('DENIALS_OWNER_ONLY', 'only the owner lists denials', { status: 403 })
    return this.access.denials(after, limit)
  }

  /**
   * Creates this session as a fork of `from` after its event `at`: the prefix's
   * turns are copied, the origin is only read, and the fork's conversation
   * `forks` from the origin's turn at that point (lineage.ts).
   */
  async forkFrom(caller: Caller, from: string, input: unknown): Promise<SessionView> {
    await forkSession(this.core, caller, from, input)
    return viewOf(this.name, this.state)
  }

  /**
   * Truncates the conversation back to event `at`, a rest point: the model's
   * history from now on ends there, and the chain's head points at that turn
   * (lineage.ts). Every event stays in the log.
   */
  async truncate(caller: Caller, input: unknown): Promise<{ head: string; truncated: number }> {
    this.access.check(this.state, caller, 'truncate')
    return truncateSession(this.core, caller, input)
  }

  /**
   * One artifact of this session's store for a reader of its history: a tool output cut for the
   * model (`tool.succeeded.artifact`), an epoch baseline, the tool specs a step offered, a spilled
   * payload (a fork copies the ones its events name). `ARTIFACT_NOT_FOUND` when the store holds no such blob.
   */
  readArtifact(caller: Caller, ref: string): { bytes: Uint8Array; kind: string | null } {
    this.access.check(this.state, caller, 'read')
    const hash = parseOrThrow(ArtifactRef, ref, 'INVALID_ARTIFACT_REF').replace(/^sha256:/, '')
    const kind = this.ledger.artifacts.kindOf(hash)
    const bytes = kind === undefined ? null : this.ledger.artifacts.get(hash)
    if (!bytes) throw new NeuronError('ARTIFACT_NOT_FOUND', `session ${this.name} holds no artifact ${ref}`, { status: 404, details: { ref } })
    return { bytes, kind: kind ?? null }
  }

  // ── Schedules (schedules.ts) ─────────────────────────────────────────────

  /** The session's live schedules, oldest first. */
  listSchedules(caller: Caller): { items: Schedule[] } {
    return this.schedules.list(caller)
  }

  /** Creates a schedule (an exact retry of the same id: `created: false`); refused whole, nothing written, past a limit. */
  createSchedule(caller: Caller, input: unknown): { schedule: Schedule; created: boolean } {
    return this.schedules.create(caller, input)
  }

  /** Replaces a schedule's definition. */
  changeSchedule(caller: Caller, id: string, input: unknown): { schedule: Schedule } {
    return this.schedules.change(caller, id, input)
  }

  /** Deletes a schedule: it never fires again. */
  deleteSchedule(caller: Caller, id: string): { deleted: string } {
    return this.schedules.delete(caller, id)
  }

  /** The session's hooks (never their secrets). */
  listHooks(caller: Caller): { items: Hook[] } {
    return this.hooks.list(caller)
  }

  /** Creates a hook (the owner only); its secret is in this answer only. */
  createHook(caller: Caller, input: unknown): Promise<{ hook: Hook; secret: string }> {
    return this.hooks.create(caller, input)
  }

  /** One signed delivery to hook `name`: verified, then admitted as a prompt (no caller: the signature is its credential). */
  receiveHook(name: string, headers: DeliveryHeaders, body: string): Promise<{ receipt: Receipt; duplicate: boolean }> {
    return this.hooks.receive(name, headers, body)
  }

  // ── The workspace (objects/workspace/calls.ts) ─────────────────────────────

  /** A page of the workspace's files under a directory, as of a sequence. */
  workspaceList(caller: Caller, query: unknown) {
    return this.files.list(caller, query)
  }

  /** One workspace file, whole or a byte or line range, as of a sequence. */
  workspaceRead(caller: Caller, query: unknown) {
    return this.files.read(caller, query)
  }

  /** Writes one file (the owner only); refused whole, nothing written, past a limit. */
  workspaceUpload(caller: Caller, query: unknown, body: ReadableStream<Uint8Array>) {
    return this.files.upload(caller, query, body)
  }

  /** Writes every file of a tar archive as one operation (the owner only). */
  workspaceUploadTar(caller: Caller, archive: ReadableStream<Uint8Array>) {
    return this.files.uploadTar(caller, archive)
  }

  /** The tree (or a directory of it) as of a sequence, as a tar stream. */
  workspaceTar(caller: Caller, query: unknown) {
    return this.files.download(caller, query)
  }

  /** The paths that differ between two sequences. */
  workspaceDiff(caller: Caller, query: unknown) {
    return this.files.diff(caller, query)
  }

  /** A workspace blob by content id, for a fork of this session reading through (workspace.ts). */
  workspaceBlob(hash: string): Promise<Uint8Array | null> {
    return this.workspace.blob(hash)
  }

  /** Writes the session's turns into the graph now, and resolves when they are there. */
  async writeChain(caller: Caller): Promise<{ cursor: number }> {
    this.access.check(this.state, caller, 'read')
    await this.chain.sync()
    return { cursor: (await this.chain.state()).cursor }
  }

  // ── Streams: SSE and hibernatable WebSockets (delivery/endpoint.ts) ─────────

  override async fetch(request: Request): Promise<Response> {
    return openStream(this.streams, request)
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    socketMessage(this.streams, ws, message)
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    socketGone(this.streams, ws, code)
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    socketGone(this.streams, ws)
  }

  override async alarm(): Promise<void> {
    await this.timers.alarm()
  }

  // ── Internals ────────────────────────────────────────────────────────────

  /** Expires the requests past their time; the timer moves to the next one's. */
  private async expirePermissions(): Promise<void> {
    const next = this.approvals.expireDue()
    if (next !== null) await this.timers.set('permissions', next)
  }

  /** The projection: the fold of every event on the session's address. */
  protected get state(): SessionState {
    return this.journal.state
  }

  protected get name(): string {
    return this.ctx.id.name ?? this.ctx.id.toString()
  }

  protected get topic(): string {
    return `session.${this.name}`
  }

  /** The session's ephemeral address: token and tool-input deltas. */
  protected get air(): string {
    return `${this.topic}.air`
  }

  /**
   * Publishes an event on the session's held address (stored, then delivered to
   * subscribers) and folds it into the projection.
   */
  protected record<T extends EventType>(type: T, payload: EventPayloads[T], headers: Header[] = []): Stored {
    const envelope = this.publish(type, payload, headers)
    this.followUps.after(type, payload)
    return envelope
  }

  /** Stores and delivers an event and folds it, with none of `record`'s follow-ups (a fork's copies). */
  private publish<T extends EventType>(type: T, payload: EventPayloads[T], headers: Header[] = []): Stored {
    const envelope = this.journal.record(type, payload, headers)
    this.transcript.apply(envelope)
    return envelope
  }

  /** The session's conversation node in `graph`, written if it is missing (memories regard it). */
  private async openConversation(graph: DurableObjectStub<GraphObject>, caller: Caller): Promise<string> {
    await graph.applyChain(caller, chainStep(emptyChain(), this.creator.event(), this.name, caller.id).ops)
    return conversationOf(this.name)
  }

  /** The session's owner as a caller: who the model's own schedules act for. */
  private ownerCaller(): Caller {
    return { id: this.state.owner, claims: [] }
  }

  private hasWork(): boolean {
    return this.state.exists && (this.state.pending.length > 0 || this.state.loopOpen)
  }
}

// Expected failures of the RPC surface are answers, not uncaught errors (objects/core/rpc.ts);
// a call to one of these from inside the object goes through `settle`.
answerFailures(SessionObject, ['create', 'view', 'summary', 'mcpServers', 'config', 'putConfig', 'prompt', 'interrupt', 'history', 'denials', 'forkFrom', 'truncate', 'writeChain', 'readArtifact', 'receive', 'permissions', 'answerPermission', 'workspaceList', 'workspaceRead', 'workspaceUpload', 'workspaceUploadTar', 'workspaceTar', 'workspaceDiff', 'workspaceBlob', 'listSchedules', 'createSchedule', 'changeSchedule', 'deleteSchedule', 'listHooks', 'createHook', 'receiveHook'])
