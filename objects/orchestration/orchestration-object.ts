/**
 * OrchestrationObject: one Durable Object per orchestration, with its own
 * ledger and one serialized decision loop. It runs the six beats for each work
 * package (ASSIGN → DECLARE → CLEARANCE → EXECUTE → REPORT → RECOVER): decisions
 * come from the pure `nextDecision` over the folded state, are recorded on
 * `orchestration.{id}`, then carried to agent sessions by the bridge stage.
 * Agents answer through the same bridge into `receive`. Every public method
 * takes the caller the gate authenticated and authorizes it first.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'
import { authorize, type Caller, gateHeaders } from '../access/authorize.ts'
import { NeuronError } from '../errors.ts'
import { Bus, on } from '../ledger/bus.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Header } from '../ledger/headers.ts'
import type { Json } from '../ledger/json.ts'
import { Ledger, migrateLedger } from '../ledger/ledger.ts'
import type { Page } from '../ledger/page.ts'
import { type Catalog, resolveModelRef } from '../llm/catalog.ts'
import { composeCatalog, type EnvVars } from '../llm/compose.ts'
import { answerClose, Subscribers } from '../session/streams.ts'
import { parseOrThrow } from '../validate.ts'
import { AgentChannel } from './agents.ts'
import type { BridgeDraft } from './bridge.ts'
import { budgetBreach } from './budgets.ts'
import { type CancelEntry, INPUT, ORCH, type OrchEvent, type OrchPayloads } from './events.ts'
import { packageOfAgent, packageOfPrompts, promptsOf } from './fanout.ts'
import { checkPlan, PlanSchema } from './plan.ts'
import { BurnInput, CancelSchema, CLEARANCE_CLAIM, ClearanceSchema, CreateOrchestrationSchema, DeclareInput, FailedInput, ReportInput } from './schemas.ts'
import { activePackages, answerOf, unfinishedPackages, type Decision, nextDecision } from './schedule.ts'
import { type CancelOutcome, emptyOrchestration, type OrchestrationView, type OrchState, reduceOrchestration, viewOfOrchestration } from './state.ts'
import { openStream, socketMessage } from './streams.ts'

/** While packages run, the object wakes this often to re-deliver and to time packages out. */
const TICK_MS = 2_000

/** The name the planner's burn is booked under (it is no package: it counts toward the whole). */
const PLANNER = '(planner)'

export class OrchestrationObject extends DurableObject<Env> {
  private readonly ledger: Ledger
  private readonly bus: Bus
  private readonly subscribers: Subscribers
  private state: OrchState = emptyOrchestration()
  private readonly agents: AgentChannel
  private readonly catalog: Catalog

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.catalog = composeCatalog(env as unknown as EnvVars)
    this.subscribers = new Subscribers(ctx, this.ledger, this.topic, () => this.state.lastSeq)
    this.agents = new AgentChannel({
      env,
      orchestration: this.name,
      waitUntil: (work) => ctx.waitUntil(work),
      deadLetter: (draft, error) => void this.bus.publish(`${this.topic}.dead`, INPUT.dead, { draft: draft as unknown as Json, error }),
    })
    // Decisions, control entries, agents' inputs and dead letters are all held: stored before delivery.
    this.bus = new Bus({ ledger: this.ledger, author: 'object:orchestration', holds: [this.topic, `${this.topic}.**`] })
    this.bus.subscribe(on(this.topic), (envelope) => this.subscribers.broadcast({ kind: 'event', envelope: envelope as Stored }))
    void ctx.blockConcurrencyWhile(async () => {
      await migrateLedger(ctx.storage)
      this.state = this.ledger.fold(this.topic, reduceOrchestration, emptyOrchestration()).state
      if (this.state.exists && this.state.status === 'running') await ctx.storage.setAlarm(Date.now())
    })
  }

  // ── RPC surface (the worker's routes and the agents' bridge call these) ──

  /** Creates the orchestration owned by `caller` and starts it; the same id again is a conflict. */
  create(caller: Caller, input: unknown): { orchestration: OrchestrationView; created: boolean } {
    const body = parseOrThrow(CreateOrchestrationSchema, input, 'INVALID_REQUEST')
    if (body.plan) checkPlan(body.plan)
    if (this.state.exists) {
      if (this.state.owner !== caller.id || this.state.goal !== body.goal) {
        throw new NeuronError('ORCHESTRATION_EXISTS', `an orchestration ${this.name} already exists`, { status: 409, details: { id: this.name } })
      }
      return { orchestration: viewOfOrchestration(this.name, this.state), created: false }
    }
    // Refused now, not at the first assignment: every agent runs on this model.
    resolveModelRef(this.catalog, body.model)
    const decision = authorize({ owner: caller.id, share: body.share }, caller)
    const { goal, share, model, plan, budget, maxAttempts, timeoutMs } = body
    this.record(ORCH.created, { goal, owner: caller.id, share, model, plan: plan ?? null, budget, maxAttempts, timeoutMs }, gateHeaders(caller, decision))
    this.advance()
    void this.ctx.storage.setAlarm(Date.now() + TICK_MS)
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
      this.execute(pkg)
    } else {
      this.record(ORCH.failed, { package: pkg, token: current.agent, reason: `clearance denied by ${caller.id}${body.reason ? `: ${body.reason}` : ''}`, retry: false }, headers)
      this.agents.stop(current.agent, 'clearance denied')
    }
    this.advance()
    return viewOfOrchestration(this.name, this.state)
  }

  /**
   * The bridge's receiving end for agents: a draft on `orchestration.{id}.agent.{token}`.
   * It is appended (content-addressed, so a redelivery is a `duplicate`) and applied at most once.
   */
  receive(input: BridgeDraft): { duplicate: boolean; answer: Json } {
    const token = this.tokenOf(input.topic)
    const { envelope, duplicate } = this.ledger.append(input)
    if (token === this.state.planner?.token) return this.receivePlan(envelope, duplicate)
    const prompts = promptsOf(envelope.payload)
    const pkg = packageOfAgent(this.state, token, prompts)
    if (!duplicate && envelope.type === INPUT.burn) return this.receiveBurn(envelope, token, prompts)
    if (duplicate) return { duplicate: true, answer: answerOf(this.state, pkg?.id) }
    if (!pkg) return { duplicate: false, answer: { accepted: false, reason: 'this agent has no package (it was replaced or never assigned)' } }
    const source = envelope.id
    const payload = envelope.payload
    switch (envelope.type) {
      case INPUT.declare: {
        if (pkg.beat !== 'assigned') return { duplicate: false, answer: { accepted: false, reason: `package ${pkg.id} is ${pkg.beat}` } }
        const declaration = parseOrThrow(DeclareInput, payload, 'INVALID_DECLARATION')
        this.record(ORCH.declared, { package: pkg.id, token, declaration, source })
        this.advance()
        return { duplicate: false, answer: answerOf(this.state, pkg.id) }
      }
      case INPUT.report: {
        if (pkg.beat !== 'executing') return { duplicate: false, answer: { accepted: false, reason: `package ${pkg.id} is ${pkg.beat}` } }
        const report = parseOrThrow(ReportInput, payload, 'INVALID_REPORT')
        this.record(ORCH.reported, { package: pkg.id, token, result: report.result as Json, artifacts: report.artifacts, source })
        this.advance()
        return { duplicate: false, answer: { accepted: true } }
      }
      case INPUT.failed: {
        const failure = parseOrThrow(FailedInput, payload, 'INVALID_FAILURE')
        if (pkg.beat === 'reported' || pkg.beat === 'failed' || pkg.beat === 'cancelled' || pkg.beat === 'blocked') return { duplicate: false, answer: { accepted: false, reason: `package ${pkg.id} is ${pkg.beat}` } }
        this.fail(pkg.id, `agent failed: ${failure.reason}`, source)
        this.advance()
        return { duplicate: false, answer: { accepted: true } }
      }
      default:
        throw new NeuronError('UNKNOWN_INPUT', `an agent cannot send ${envelope.type}`, { status: 400, details: { type: envelope.type } })
    }
  }

  /**
   * Burn counts for the package the step's prompt named (an inline agent works on several), else
   * the last the token worked on: a replaced agent's last steps were spent too.
   */
  private receiveBurn(envelope: Stored, token: string, prompts: string[]): { duplicate: boolean; answer: Json } {
    const pkgId = packageOfPrompts(token, prompts) ?? this.state.tokens.get(token)
    if (pkgId === undefined) return { duplicate: false, answer: { accepted: false, reason: 'unknown agent' } }
    const burn = parseOrThrow(BurnInput, envelope.payload, 'INVALID_BURN')
    this.record(ORCH.burned, { package: pkgId, token, step: burn.step, tokens: burn.tokens, cost: burn.cost, source: envelope.id })
    this.enforceBudgets(pkgId)
    return { duplicate: false, answer: { accepted: true } }
  }

  /** The planner's `plan` call: a valid DAG is recorded and scheduled; an invalid one is answered so the model can fix it. */
  private receivePlan(envelope: Stored, duplicate: boolean): { duplicate: boolean; answer: Json } {
    if (duplicate) return { duplicate: true, answer: { planned: this.state.planned } }
    if (envelope.type === INPUT.burn) {
      const burn = parseOrThrow(BurnInput, envelope.payload, 'INVALID_BURN')
      this.record(ORCH.burned, { package: PLANNER, token: this.state.planner!.token, step: burn.step, tokens: burn.tokens, cost: burn.cost, source: envelope.id })
      this.enforceBudgets(null)
      return { duplicate: false, answer: { accepted: true } }
    }
    if (this.state.planned || this.state.status !== 'running') return { duplicate: false, answer: { accepted: false, reason: `the orchestration is ${this.state.planned ? 'planned' : this.state.status}` } }
    if (envelope.type === INPUT.failed) {
      this.record(ORCH.finished, { status: 'failed', reason: 'the planning turn failed' })
      return { duplicate: false, answer: { accepted: true } }
    }
    if (envelope.type !== INPUT.plan) return { duplicate: false, answer: { accepted: false, reason: 'the planner only sends a plan' } }
    const parsed = PlanSchema.safeParse((envelope.payload as { packages?: unknown } | null)?.packages)
    if (!parsed.success) return { duplicate: false, answer: { accepted: false, error: { code: 'INVALID_PLAN', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') } } }
    try {
      checkPlan(parsed.data)
    } catch (error) {
      const e = error as NeuronError
      return { duplicate: false, answer: { accepted: false, error: { code: e.code, message: e.message, details: e.details as Json } } }
    }
    this.record(ORCH.planned, { plan: parsed.data, source: envelope.id })
    this.advance()
    return { duplicate: false, answer: { accepted: true, packages: parsed.data.length } }
  }

  // ── Streams ──────────────────────────────────────────────────────────────

  override async fetch(request: Request): Promise<Response> {
    return openStream(request, this.subscribers, (caller) => this.check(caller))
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    socketMessage(ws, message, this.subscribers)
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.subscribers.socketsChanged()
    answerClose(ws, code)
  }

  override async webSocketError(): Promise<void> {
    this.subscribers.socketsChanged()
  }

  /** The tick: apply control entries, time packages out, re-deliver to agents (idempotent), decide. */
  override async alarm(): Promise<void> {
    if (!this.state.exists) return
    this.applyControl()
    const now = Date.now()
    const planner = this.state.planner
    if (!this.state.planned && planner) {
      if (now - planner.since > this.state.timeoutMs) this.record(ORCH.finished, { status: 'failed', reason: `the planning turn timed out after ${this.state.timeoutMs} ms` })
      else this.agents.plan(this.state)
    }
    for (const pkg of activePackages(this.state)) {
      // Only the agent's own work is timed: waiting for an added edge or a human is not.
      if ((pkg.beat === 'assigned' || pkg.beat === 'executing') && now - pkg.since > this.state.timeoutMs) {
        this.fail(pkg.id, `timed out after ${this.state.timeoutMs} ms in ${pkg.beat}`)
        continue
      }
      if (pkg.beat === 'assigned') this.agents.assign(this.state, pkg.id)
      if (pkg.beat === 'executing') this.agents.execute(this.state, pkg.id)
    }
    this.advance()
    if (this.state.status === 'running') await this.ctx.storage.setAlarm(Date.now() + TICK_MS)
  }

  // ── Internals ────────────────────────────────────────────────────────────

  private get name(): string {
    return this.ctx.id.name ?? this.ctx.id.toString()
  }

  private get topic(): string {
    return `orchestration.${this.name}`
  }

  private get control(): string {
    return `${this.topic}.control`
  }

  private record<T extends OrchEvent>(type: T, payload: OrchPayloads[T], headers: Header[] = []): Stored {
    const envelope = this.bus.publish(this.topic, type, payload, { parent: this.state.lastId, headers }) as Stored
    this.state = reduceOrchestration(this.state, envelope)
    return envelope
  }

  private check(caller: Caller) {
    if (!this.state.exists) throw orchestrationNotFound(this.name)
    const decision = authorize({ owner: this.state.owner, share: this.state.share }, caller)
    if (decision.decision !== 'allow') throw orchestrationNotFound(this.name)
    return decision
  }

  /** Records and carries out decisions until the state needs an agent or a human. */
  private advance(): void {
    for (let decision = nextDecision(this.state); decision; decision = nextDecision(this.state)) this.apply(decision)
  }

  private apply(decision: Decision): void {
    switch (decision.kind) {
      case 'plan':
        this.record(ORCH.plannerAssigned, { token: `plan-${crypto.randomUUID()}` })
        this.agents.plan(this.state)
        return
      case 'inline': {
        const { package: pkg, reason, expectedMs, breakEvenMs } = decision
        this.record(ORCH.inlined, { package: pkg, agent: decision.agent ?? crypto.randomUUID(), reason, expectedMs, breakEvenMs })
        return
      }
      case 'assign': {
        const pkg = this.state.packages.get(decision.package)!
        // An inline package is assigned to its shared agent; any other to a fresh one.
        const token = pkg.inline?.agent ?? crypto.randomUUID()
        this.record(ORCH.assigned, { package: pkg.id, token, attempt: pkg.attempts + 1 })
        this.agents.assign(this.state, pkg.id)
        return
      }
      case 'block':
        this.record(ORCH.blocked, { package: decision.package, reason: decision.reason })
        return
      case 'clear': {
        const { conflicts, edges } = decision.decision
        if (conflicts.length > 0) return void this.record(ORCH.refused, { package: decision.package, conflicts, edges })
        if (decision.human) return void this.record(ORCH.awaitingHuman, { package: decision.package })
        this.record(ORCH.cleared, { package: decision.package, by: 'dag' })
        this.execute(decision.package)
        return
      }
      case 'finish':
        this.record(ORCH.finished, { status: decision.status, reason: decision.reason })
    }
  }

  private execute(pkgId: string): void {
    const pkg = this.state.packages.get(pkgId)!
    this.record(ORCH.executing, { package: pkgId, token: pkg.agent! })
    this.agents.execute(this.state, pkgId)
  }

  /** RECOVER: a failed attempt is retried with a fresh agent while attempts remain, else the package fails. */
  private fail(pkgId: string, reason: string, source?: string): void {
    const pkg = this.state.packages.get(pkgId)!
    const retry = pkg.attempts < this.state.maxAttempts
    this.record(ORCH.failed, { package: pkgId, token: pkg.agent, reason, retry, ...(source ? { source } : {}) })
    this.agents.stop(pkg.agent, reason)
  }

  /** Applies control entries not yet applied. Idempotent by state: what is final stays final. */
  private applyControl(just?: Stored): void {
    const entries = just ? [just] : this.ledger.byTopic(this.control, { limit: 1000 }).items
    for (const entry of entries) {
      const cancel = entry.payload as unknown as CancelEntry
      const reason = `cancelled by ${cancel.principal}: ${cancel.reason}`
      for (const id of unfinishedPackages(this.state, cancel.package)) {
        const agent = this.state.packages.get(id)!.agent
        this.record(ORCH.cancelled, { package: id, reason, source: entry.id })
        this.agents.stop(agent, reason)
      }
      if (cancel.package === null && this.state.status === 'running') {
        this.record(ORCH.finished, { status: 'cancelled', reason })
        if (!this.state.planned) this.agents.stop(this.state.planner?.token ?? null, reason)
      }
    }
    this.advance()
  }

  /** Budgets: crossing a package's cap cancels it; crossing the orchestration's cancels everything, durably. */
  private enforceBudgets(pkgId: string | null): void {
    const breach = budgetBreach(this.state, pkgId)
    if (!breach) return
    this.record(ORCH.budgetExceeded, breach)
    const reason = `${breach.scope} budget exceeded: ${breach.used} ${breach.limit} > ${breach.cap}`
    for (const id of unfinishedPackages(this.state, breach.package ?? null)) {
      const agent = this.state.packages.get(id)!.agent
      this.record(ORCH.cancelled, { package: id, reason, source: `budget:${id}` })
      this.agents.stop(agent, reason)
    }
    if (breach.scope === 'orchestration') this.record(ORCH.finished, { status: 'failed', reason })
    else this.advance()
  }

  private tokenOf(topic: string): string {
    const prefix = `${this.topic}.agent.`
    const token = topic.startsWith(prefix) ? topic.slice(prefix.length) : ''
    if (!/^[A-Za-z0-9_:-]+$/.test(token)) throw new NeuronError('INVALID_ADDRESS', `${topic} is not an agent address of ${this.topic}`, { status: 400 })
    return token
  }
}

export function orchestrationNotFound(id: string): NeuronError {
  return new NeuronError('ORCHESTRATION_NOT_FOUND', `no orchestration ${id}`, { status: 404, details: { id } })
}

function packageNotFound(id: string, pkg: string): NeuronError {
  return new NeuronError('PACKAGE_NOT_FOUND', `orchestration ${id} has no package ${pkg}`, { status: 404, details: { id, package: pkg } })
}
