/**
 * OrchestrationObject: one Durable Object per orchestration, with its own
 * ledger and one serialized decision loop. It runs the six beats for each work
 * package (ASSIGN → DECLARE → CLEARANCE → EXECUTE → REPORT → RECOVER): decisions
 * come from the pure `nextDecision` over the folded state, are recorded on
 * `orchestration.{id}`, then carried to agent sessions by the bridge stage.
 * Agents answer through the same bridge into `receive`. Every public method
 * takes the caller the gate authenticated and authorizes it first, and every
 * decision names the principal whose input caused it (cause.ts).
 *
 * The loop shares the thread: one turn records at most
 * `ORCHESTRATION_DECISIONS_PER_TURN` decisions and goes on after a later turn
 * of the event loop, the create only records the orchestration, and the bridge
 * begins every delivery on a later turn (event-loop.ts). What the loop still
 * has to do is a function of the folded state, so the tick (an alarm every 2 s
 * while running) carries it over an eviction.
 *
 * Past 400 lines because workerd calls RPC methods on the class itself: the RPC surface, the
 * stream handlers and the decision loop's small helpers stand here; each decision is pure
 * (schedule.ts, plan.ts, clearance.ts, budgets.ts) and each side effect has its module.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import { authorize, type Caller, gateHeaders } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'
import { laterTurn } from '../core/event-loop.ts'
import { Timers } from '../core/timers.ts'
import { answerFailures } from '../core/rpc.ts'
import { Journal } from '../core/journal.ts'
import { type Bus, on } from '../ledger/bus.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Header } from '../ledger/headers.ts'
import type { Json } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_TABLES } from '../ledger/tables.ts'
import { WORKSPACE_TABLES } from '../workspace/tables.ts'
import type { Page } from '../ledger/page.ts'
import { ORCHESTRATION_DECISIONS_PER_TURN } from '../core/limits.ts'
import { composeCatalog, type EnvVars } from '../llm/compose.ts'
import { OwnerCatalog } from '../llm/owner-catalog.ts'
import { openStream, socketGone, socketMessage, type StreamHost } from '../delivery/endpoint.ts'
import { SubscribeMessage } from '../delivery/protocol.ts'
import { Subscribers } from '../delivery/subscribers.ts'
import { parseOrThrow } from '../core/validate.ts'
import { AgentChannel } from './agents.ts'
import type { BridgeDraft } from '../agent-link/bridge.ts'
import { budgetBreach } from './budgets.ts'
import { orchestrationPrincipal } from '../agent-link/protocol.ts'
import { type CancelEntry, INPUT, ORCH, type OrchEvent, type OrchPayloads } from './events.ts'
import { type InputHost, receiveInput } from './inputs.ts'
import { type Extensions, NO_EXTENSIONS } from '../extend/extensions.ts'
import { checkPlan } from './plan.ts'
import type { PackageWorkspaceAnswer } from '../agent-link/workspace.ts'
import { SharedWorkspace } from './workspace.ts'
import { CancelSchema, CLEARANCE_CLAIM, ClearanceSchema, CreateOrchestrationSchema } from './schemas.ts'
import { unfinishedPackages, type Decision, nextDecision, tickActions } from './schedule.ts'
import { type CancelOutcome, emptyOrchestration, type OrchestrationView, type OrchState, reduceOrchestration, viewOfOrchestration } from './state.ts'

/** While packages run, the object wakes this often to re-deliver and to time packages out. */
const TICK_MS = 2_000

/** The orchestration's tables: the embedded ledger's and its shared workspace's. */
export const TABLES = tables([LEDGER_TABLES, WORKSPACE_TABLES])

export class OrchestrationObject extends DurableObject<Env> {
  /** A deployment's own catalog rows (its tools are the sessions'); `createNeuron` (worker/neuron.ts) subclasses to set them. */
  static readonly extensions: Extensions = NO_EXTENSIONS
  /** The orchestration's log, its bus and its folded state (objects/core/journal.ts). */
  private readonly journal: Journal<OrchState>
  private readonly ledger: Ledger
  private readonly bus: Bus
  private readonly subscribers: Subscribers
  private readonly agents: AgentChannel
  /** The deployment's catalog with the owner's stored keys, as a session's model resolves. */
  private readonly owned: OwnerCatalog
  /** A later turn of the decision loop is scheduled. */
  private continuing = false
  /** Ticks since this object woke: which window of active packages the tick re-delivers to. */
  private ticks = 0
  /** What agents' inputs use of this object (inputs.ts). */
  private readonly inputs: InputHost
  /** The packages' shared workspace, when the orchestration has one (workspace.ts). */
  private readonly workspace: SharedWorkspace
  /** What the stream fetch and the socket handlers use of this object (delivery/endpoint.ts): sockets only subscribe. */
  private readonly streams: StreamHost
  /**
   * The object's named timers over its one alarm (objects/core/timers.ts): a timer is one line
   * here. The tick is set again from the folded state on every wake (while running), so it lives
   * in the alarm only.
   */
  private readonly timers = new Timers(this.ctx.storage, { tick: { keep: 'revival', run: () => this.tick() } })

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    // Decisions, control entries, agents' inputs and dead letters are all held: stored before delivery.
    // Each decision's causal parent is the one before it.
    this.journal = new Journal({
      storage: ctx.storage,
      topic: this.topic,
      author: 'object:orchestration',
      holds: [`${this.topic}.**`],
      reduce: reduceOrchestration,
      initial: emptyOrchestration,
      parent: (state) => state.lastId,
    })
    this.ledger = this.journal.ledger
    this.bus = this.journal.bus
    const { rows } = (new.target as typeof OrchestrationObject).extensions
    this.owned = new OwnerCatalog(env, composeCatalog(env as unknown as EnvVars, rows), rows)
    this.subscribers = new Subscribers(ctx, this.ledger, this.topic, () => this.state.lastSeq)
    this.streams = { name: 'OrchestrationObject', kv: ctx.storage.kv, subscribers: this.subscribers, messages: SubscribeMessage, read: (caller) => void this.check(caller) }
    this.agents = new AgentChannel({
      env,
      orchestration: this.name,
      waitUntil: (work) => ctx.waitUntil(work),
      deadLetter: (draft, error) => void this.bus.publish(`${this.topic}.dead`, INPUT.dead, { draft: draft as unknown as Json, error }, { headers: this.own }),
    })
    this.bus.subscribe(on(this.topic), (envelope) => this.subscribers.broadcast({ kind: 'event', envelope: envelope as Stored }))
    this.inputs = {
      name: this.name,
      state: () => this.state,
      append: (draft) => this.ledger.append(draft),
      record: (type, payload, headers) => this.record(type, payload, headers),
      advance: () => this.advance(),
      fail: (pkg, reason, headers, source) => this.fail(pkg, reason, headers, source),
      enforceBudgets: (pkg, headers) => this.enforceBudgets(pkg, headers),
    }
    this.workspace = new SharedWorkspace({ name: this.name, ledger: this.ledger, storage: ctx.storage, state: () => this.state, check: (caller) => void this.check(caller) })
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, TABLES)
      this.journal.restore()
      if (this.state.exists && this.state.status === 'running') await this.timers.set('tick', Date.now())
    })
  }

  // ── RPC surface (the worker's routes and the agents' bridge call these) ──

  /**
   * Creates the orchestration owned by `caller` and answers at once: its first decisions follow on
   * a later turn. The same request again answers the orchestration; another one with its id is a conflict.
   */
  async create(caller: Caller, input: unknown): Promise<{ orchestration: OrchestrationView; created: boolean }> {
    const body = parseOrThrow(CreateOrchestrationSchema, input, 'INVALID_REQUEST')
    if (body.plan) checkPlan(body.plan)
    // Refused now, not at the first assignment: every agent runs on this model, resolved as a session's is.
    if (!this.state.exists) await this.owned.resolve(caller.id, body.model)
    // After the only await: the check and the write below are one step, so two creates cannot interleave.
    if (this.state.exists) {
      if (this.state.owner !== caller.id || this.state.goal !== body.goal) {
        throw new NeuronError('ORCHESTRATION_EXISTS', `an orchestration ${this.name} already exists`, { status: 409, details: { id: this.name } })
      }
      return { orchestration: viewOfOrchestration(this.name, this.state), created: false }
    }
    const decision = authorize({ owner: caller.id, share: body.share }, caller)
    const { goal, share, model, plan, budget, maxAttempts, timeoutMs, clearanceTimeoutMs, workspace } = body
    this.record(ORCH.created, { goal, owner: caller.id, share, model, plan: plan ?? null, budget, maxAttempts, timeoutMs, clearanceTimeoutMs, workspace }, gateHeaders(caller, decision))
    void this.timers.set('tick', Date.now() + TICK_MS)
    this.continueLater()
    return { orchestration: viewOfOrchestration(this.name, this.state), created: true }
  }

  view(caller: Caller): OrchestrationView {
    this.check(caller)
    return viewOfOrchestration(this.name, this.state)
  }

  /** A page of durable entries on the main address, or on one of its sub-addresses (`control`, `dead`, `agent.{token}`). */
  history(caller: Caller, after = 0, limit = 100, address?: string): Page {
    this.check(caller)
    return this.ledger.byTopic(address ? `${this.topic}.${address}` : this.topic, { after, limit })
  }

  /**
   * Records a cancel entry on the control address, then applies it: the named package (or every
   * unfinished one) is cancelled and its agent interrupted. Idempotent: cancelling what is
   * already final records nothing.
   */
  cancel(caller: Caller, input: unknown): CancelOutcome {
    const decision = this.check(caller)
    const body = parseOrThrow(CancelSchema, input, 'INVALID_REQUEST')
    if (body.package !== undefined && !this.state.packages.has(body.package)) throw packageNotFound(this.name, body.package)
    const targets = unfinishedPackages(this.state, body.package ?? null)
    if (targets.length === 0 && (body.package !== undefined || this.state.status !== 'running')) return { cancelled: [], entry: null }
    const entry: CancelEntry = { package: body.package ?? null, reason: body.reason, principal: caller.id }
    const stored = this.bus.publish(this.control, INPUT.cancel, entry, { headers: gateHeaders(caller, decision) }) as Stored
    this.applyControl(stored)
    return { cancelled: targets, entry: stored.seq }
  }

  /** A human's clearance decision for a package waiting on one; needs the `role:clearance` claim. */
  decideClearance(caller: Caller, pkg: string, input: unknown): OrchestrationView {
    const decision = this.check(caller)
    const body = parseOrThrow(ClearanceSchema, input, 'INVALID_REQUEST')
    const current = this.state.packages.get(pkg)
    if (!current) throw packageNotFound(this.name, pkg)
    if (!caller.claims.includes(CLEARANCE_CLAIM)) {
      throw new NeuronError('CLEARANCE_CLAIM_REQUIRED', `deciding clearance needs the ${CLEARANCE_CLAIM} claim`, { status: 403, details: { claim: CLEARANCE_CLAIM } })
    }
    if (current.beat !== 'awaiting-human') {
      throw new NeuronError('NOT_AWAITING_CLEARANCE', `package ${pkg} is ${current.beat}, not awaiting a human clearance`, { status: 409, details: { package: pkg, beat: current.beat } })
    }
    const headers = gateHeaders(caller, decision)
    if (body.decision === 'grant') {
      this.record(ORCH.cleared, { package: pkg, by: 'human', principal: caller.id }, headers)
      this.execute(pkg, headers)
    } else {
      this.record(ORCH.failed, { package: pkg, token: current.agent, reason: `clearance denied by ${caller.id}${body.reason ? `: ${body.reason}` : ''}`, retry: false }, headers)
      this.agents.stop(current.agent, 'clearance denied')
    }
    this.advance()
    return viewOfOrchestration(this.name, this.state)
  }

  /**
   * The bridge's receiving end for agents: a draft on `orchestration.{id}.agent.{token}`, applied
   * at most once; one an agent's turn may not carry is refused before it is written (inputs.ts).
   */
  receive(input: BridgeDraft): { duplicate: boolean; answer: Json } {
    return receiveInput(this.inputs, input)
  }

  // ── The shared workspace (workspace.ts) ──────────────────────────────────

  /** A package's file tool call on the shared workspace, authorized by its agent's token and turn. */
  packageWorkspace(token: string, call: unknown): PackageWorkspaceAnswer {
    return this.workspace.answer(token, call)
  }

  /** The owner's reads of the shared workspace: the calls a session's workspace answers. */
  workspaceList(caller: Caller, query: unknown) {
    return this.workspace.calls.list(caller, query)
  }

  workspaceRead(caller: Caller, query: unknown) {
    return this.workspace.calls.read(caller, query)
  }

  workspaceTar(caller: Caller, query: unknown) {
    return this.workspace.calls.download(caller, query)
  }

  workspaceDiff(caller: Caller, query: unknown) {
    return this.workspace.calls.diff(caller, query)
  }

  // ── Streams ──────────────────────────────────────────────────────────────

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

  /**
   * The tick: apply control entries, time packages out, expire clearances no human gave in time,
   * re-deliver to agents (idempotent), and go on deciding.
   */
  private async tick(): Promise<void> {
    if (!this.state.exists) return
    this.applyControl()
    const now = Date.now()
    const planner = this.state.planner
    if (!this.state.planned && planner && this.state.status === 'running') {
      if (now - planner.since > this.state.timeoutMs) this.record(ORCH.finished, { status: 'failed', reason: `the planning turn timed out after ${this.state.timeoutMs} ms` }, this.own)
      else this.agents.plan(this.state)
    }
    for (const action of tickActions(this.state, now, this.ticks++)) {
      if (action.kind === 'timeout') this.fail(action.package, action.reason, this.own)
      else if (action.kind === 'expire') this.expire(action.package, action.reason)
      else if (action.beat === 'assigned') this.agents.assign(this.state, action.package)
      else this.agents.execute(this.state, action.package)
    }
    this.advance()
    if (this.state.status === 'running') await this.timers.set('tick', Date.now() + TICK_MS)
  }

  // ── Internals ────────────────────────────────────────────────────────────

  /** The fold of every decision on the orchestration's address. */
  private get state(): OrchState {
    return this.journal.state
  }

  private get name(): string {
    return this.ctx.id.name ?? this.ctx.id.toString()
  }

  private get topic(): string {
    return `orchestration.${this.name}`
  }

  private get control(): string {
    return `${this.topic}.control`
  }

  /** What the orchestration's own rules decide carries: the orchestration as the principal (cause.ts). */
  private get own(): Header[] {
    return [{ key: 'principal', value: orchestrationPrincipal(this.name) }]
  }

  /** Records a decision with the headers of the input that caused it (cause.ts) and folds it. */
  private record<T extends OrchEvent>(type: T, payload: OrchPayloads[T], headers: Header[]): Stored {
    return this.journal.record(type, payload, headers)
  }

  private check(caller: Caller) {
    if (!this.state.exists) throw orchestrationNotFound(this.name)
    const decision = authorize({ owner: this.state.owner, share: this.state.share }, caller)
    if (decision.decision !== 'allow') throw orchestrationNotFound(this.name)
    return decision
  }

  /**
   * Records and carries out decisions until the state needs an agent or a human, at most
   * `ORCHESTRATION_DECISIONS_PER_TURN` of them; the rest follow on a later turn.
   */
  private advance(): void {
    for (let n = 0; n < ORCHESTRATION_DECISIONS_PER_TURN; n++) {
      const decision = nextDecision(this.state)
      if (!decision) return
      this.apply(decision)
    }
    this.continueLater()
  }

  /**
   * The decision loop goes on after whatever waits for the thread. Nothing needs remembering: the
   * next decision is a function of the folded state, so if the object is evicted first the tick
   * goes on from the log.
   */
  private continueLater(): void {
    if (this.continuing) return
    this.continuing = true
    void laterTurn()
      .then(() => {
        this.continuing = false
        this.advance()
      })
      .catch((error: unknown) => console.error('orchestration: the decision loop stopped; the tick resumes it', { orchestration: this.name, error }))
  }

  private apply(decision: Decision): void {
    switch (decision.kind) {
      case 'plan':
        this.record(ORCH.plannerAssigned, { token: `plan-${crypto.randomUUID()}` }, this.own)
        this.agents.plan(this.state)
        return
      case 'inline': {
        const { package: pkg, reason, expectedMs, breakEvenMs } = decision
        this.record(ORCH.inlined, { package: pkg, agent: decision.agent ?? crypto.randomUUID(), reason, expectedMs, breakEvenMs }, this.own)
        return
      }
      case 'assign': {
        const pkg = this.state.packages.get(decision.package)!
        // An inline package is assigned to its shared agent; any other to a fresh one.
        const token = pkg.inline?.agent ?? crypto.randomUUID()
        this.record(ORCH.assigned, { package: pkg.id, token, attempt: pkg.attempts + 1 }, this.own)
        this.agents.assign(this.state, pkg.id)
        return
      }
      case 'block':
        this.record(ORCH.blocked, { package: decision.package, reason: decision.reason }, this.own)
        return
      case 'clear': {
        const { conflicts, edges } = decision.decision
        if (conflicts.length > 0) return void this.record(ORCH.refused, { package: decision.package, conflicts, edges }, this.own)
        if (decision.human) return void this.record(ORCH.awaitingHuman, { package: decision.package }, this.own)
        this.record(ORCH.cleared, { package: decision.package, by: 'dag' }, this.own)
        this.execute(decision.package, this.own)
        return
      }
      case 'finish':
        this.record(ORCH.finished, { status: decision.status, reason: decision.reason }, this.own)
    }
  }

  private execute(pkgId: string, headers: Header[]): void {
    const pkg = this.state.packages.get(pkgId)!
    this.record(ORCH.executing, { package: pkgId, token: pkg.agent! }, headers)
    this.agents.execute(this.state, pkgId)
  }

  /** RECOVER: a failed attempt is retried with a fresh agent while attempts remain, else the package fails. */
  private fail(pkgId: string, reason: string, headers: Header[], source?: string): void {
    const pkg = this.state.packages.get(pkgId)!
    const retry = pkg.attempts < this.state.maxAttempts
    this.record(ORCH.failed, { package: pkgId, token: pkg.agent, reason, retry, ...(source ? { source } : {}) }, headers)
    this.agents.stop(pkg.agent, reason)
  }

  /** No human cleared the package in time: it fails for good (a retry would only wait again), and its dependents are blocked. */
  private expire(pkgId: string, reason: string): void {
    const pkg = this.state.packages.get(pkgId)!
    this.record(ORCH.failed, { package: pkgId, token: pkg.agent, reason, retry: false, code: 'CLEARANCE_EXPIRED' }, this.own)
    this.agents.stop(pkg.agent, reason)
  }

  /** Applies control entries not yet applied. Idempotent by state: what is final stays final. */
  private applyControl(just?: Stored): void {
    const entries = just ? [just] : this.ledger.byTopic(this.control, { limit: 1000 }).items
    for (const entry of entries) {
      const cancel = entry.payload as unknown as CancelEntry
      const reason = `cancelled by ${cancel.principal}: ${cancel.reason}`
      const headers = [{ key: 'principal', value: cancel.principal }]
      for (const id of unfinishedPackages(this.state, cancel.package)) {
        const agent = this.state.packages.get(id)!.agent
        this.record(ORCH.cancelled, { package: id, reason, source: entry.id }, headers)
        this.agents.stop(agent, reason)
      }
      if (cancel.package === null && this.state.status === 'running') {
        this.record(ORCH.finished, { status: 'cancelled', reason }, headers)
        if (!this.state.planned) this.agents.stop(this.state.planner?.token ?? null, reason)
      }
    }
    this.advance()
  }

  /**
   * Budgets: crossing a package's cap cancels it; crossing the orchestration's cancels everything,
   * durably. The burn that crossed it is the cause (`headers`).
   */
  private enforceBudgets(pkgId: string | null, headers: Header[]): void {
    const breach = budgetBreach(this.state, pkgId)
    if (!breach) return
    this.record(ORCH.budgetExceeded, breach, headers)
    const reason = `${breach.scope} budget exceeded: ${breach.used} ${breach.limit} > ${breach.cap}`
    for (const id of unfinishedPackages(this.state, breach.package ?? null)) {
      const agent = this.state.packages.get(id)!.agent
      this.record(ORCH.cancelled, { package: id, reason, source: `budget:${id}` }, headers)
      this.agents.stop(agent, reason)
    }
    if (breach.scope === 'orchestration') this.record(ORCH.finished, { status: 'failed', reason }, headers)
    else this.advance()
  }
}

export function orchestrationNotFound(id: string): NeuronError {
  return new NeuronError('ORCHESTRATION_NOT_FOUND', `no orchestration ${id}`, { status: 404, details: { id } })
}

function packageNotFound(id: string, pkg: string): NeuronError {
  return new NeuronError('PACKAGE_NOT_FOUND', `orchestration ${id} has no package ${pkg}`, { status: 404, details: { id, package: pkg } })
}

// Expected failures of the RPC surface are answers, not uncaught errors (objects/core/rpc.ts):
// the routes and the agents' bridge call through `settled`.
answerFailures(OrchestrationObject, ['create', 'view', 'history', 'cancel', 'decideClearance', 'receive', 'packageWorkspace', 'workspaceList', 'workspaceRead', 'workspaceTar', 'workspaceDiff'])
