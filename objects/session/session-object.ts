/**
 * SessionObject: one Durable Object per session (spec §3). It composes the
 * ledger, the bus, the projection fold, access, the runner, the tools and the
 * subscribers; each of those lives in its own module. Everything the session
 * says crosses its bus: events on its held address, deltas on its air. Every public method
 * takes the caller the gate authenticated and authorizes it first.
 */
import { DurableObject } from 'cloudflare:workers'
import { z } from 'zod'
import type { Env } from '../../worker/env.ts'
import { authorize, type Caller, gateHeaders } from '../access/authorize.ts'
import { NeuronError } from '../errors.ts'
import { MAX_BODY_BYTES } from '../limits.ts'
import { parseJson } from '../parse-json.ts'
import { Bus, on } from '../ledger/bus.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Header } from '../ledger/headers.ts'
import { utf8Length } from '../ledger/json.ts'
import { Ledger, migrateLedger, type Page } from '../ledger/ledger.ts'
import { type Catalog, resolveModelRef } from '../llm/catalog.ts'
import { composeCatalog, type EnvVars } from '../llm/compose.ts'
import { costOf } from '../llm/cost.ts'
import { streamModelBatches } from '../llm/stream.ts'
import type { Usage } from '../llm/types.ts'
import { calculator } from '../tools/builtins/calculator.ts'
import { notesTools } from '../tools/builtins/notes.ts'
import { wait } from '../tools/builtins/wait.ts'
import { ToolRegistry } from '../tools/registry.ts'
import { Identifier, parseOrThrow } from '../validate.ts'
import { SessionAccess } from './access.ts'
import { admit, PromptSchema, type Receipt } from './admission.ts'
import { EVENT, type EventPayloads, type EventType } from './events.ts'
import { History } from './history.ts'
import { emptySession, reduceSession, type SessionState, type SessionView, viewOf } from './projection.ts'
import { recover } from './recovery.ts'
import { type Delta, Runner } from './runner.ts'
import { type SocketAttachment, Subscribers } from './streams.ts'
import { CALLER_HEADER, ClientMessageSchema, TICKET_HEADER } from './ws-protocol.ts'
import { bridge, type BridgeDraft } from '../orchestration/bridge.ts'
import type { Json } from '../ledger/json.ts'
import { AgentLink, agentAddressOf, AgentMessageSchema } from './agent.ts'

/** While a drain runs, an alarm this far ahead revives the object if it is evicted mid-work. */
const WATCHDOG_MS = 30_000

/** The body of `POST /v1/sessions`. */
export const CreateSessionSchema = z.strictObject({
  id: Identifier.optional(),
  model: z.string().regex(/^[^/\s]+\/[^\s]+$/, 'must be provider/model, e.g. local/echo-1').optional(),
  title: z.string().max(512).optional(),
  system: z.string().max(64 * 1024).optional(),
  /** Claims that grant access besides ownership, e.g. ["org:acme"]. */
  share: z.array(z.string().min(1).max(256)).max(16).default([]),
})

export class SessionObject extends DurableObject<Env> {
  protected readonly ledger: Ledger
  protected readonly catalog: Catalog
  protected readonly tools = new ToolRegistry()
  protected readonly runner: Runner
  protected readonly access: SessionAccess
  protected readonly subscribers: Subscribers
  protected readonly bus: Bus
  protected state: SessionState = emptySession()
  /** Set when this session is an orchestration's agent (its name says so). */
  protected readonly agent: AgentLink | null

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.catalog = composeCatalog(env as unknown as EnvVars)
    this.access = new SessionAccess(this.ledger, `${this.topic}.denials`, () => this.name)
    this.subscribers = new Subscribers(ctx, this.ledger, this.topic)
    // The session's address is held, so its events are stored before delivery; `.air` is not:
    // deltas reach whoever listens and are gone.
    this.bus = new Bus({ ledger: this.ledger, author: 'object:session', holds: [this.topic] })
    this.bus.subscribe(on(this.topic), (envelope) => this.subscribers.broadcast({ kind: 'event', envelope: envelope as Stored }))
    this.bus.subscribe(on(this.air), (envelope) => this.subscribers.broadcast({ kind: 'delta', delta: envelope.payload as unknown as Delta }))
    const history = new History(this.ledger, this.topic)
    this.runner = new Runner({
      sessionId: this.name,
      state: () => this.state,
      record: (type, payload) => this.record(type, payload),
      air: (delta) => void this.bus.publish(this.air, delta.type, delta),
      history: () => history.messages(),
      stream: (request, signal) => streamModelBatches(request, { catalog: this.catalog, signal }),
      cost: (provider, model, usage) => this.costOf(provider, model, usage),
      keepArtifact: (text) => this.ledger.artifacts.put(new TextEncoder().encode(text), 'text/plain').ref,
      tools: this.tools,
    })
    const notes = notesTools(this.ledger, `${this.topic}.notes`)
    this.tools.register('calculator', calculator)
    this.tools.register('note_write', notes.write)
    this.tools.register('note_search', notes.search)
    this.tools.register('wait', wait)
    this.agent = this.agentLink()
    for (const [name, tool] of this.agent?.tools() ?? []) this.tools.register(name, tool)
    void ctx.blockConcurrencyWhile(async () => {
      await migrateLedger(ctx.storage)
      this.state = this.ledger.fold(this.topic, reduceSession, emptySession()).state
      if (recover(this.state, (type, payload) => this.record(type, payload)) || this.hasWork()) {
        await ctx.storage.setAlarm(Date.now())
      }
    })
  }

  // ── RPC surface (the worker's routes call these) ─────────────────────────

  /** Creates the session owned by `caller`; the same request again is a no-op, a different one a conflict. */
  create(caller: Caller, input: unknown): { session: SessionView; created: boolean } {
    const body = parseOrThrow(CreateSessionSchema, input, 'INVALID_REQUEST')
    const resolved = body.model ? this.resolveModel(body.model) : this.catalog.default()
    const wanted = { provider: resolved.provider.id, model: resolved.model.id, title: body.title ?? null, system: body.system ?? null }
    if (this.state.exists) {
      const { provider, model, title, system, owner, share } = this.state
      const same = owner === caller.id && provider === wanted.provider && model === wanted.model && title === wanted.title && system === wanted.system && share.join('\n') === body.share.join('\n')
      if (!same) throw new NeuronError('SESSION_EXISTS', `a session ${this.name} already exists`, { status: 409, details: { id: this.name } })
      return { session: viewOf(this.name, this.state), created: false }
    }
    // The creator becomes the owner; the decision that records it is the same stage's.
    const decision = authorize({ owner: caller.id, share: body.share }, caller)
    this.record(EVENT.created, { ...wanted, owner: caller.id, share: body.share }, gateHeaders(caller, decision))
    return { session: viewOf(this.name, this.state), created: true }
  }

  /** The projection, for a caller the session's policy allows. */
  view(caller: Caller): SessionView {
    this.access.check(this.state, caller, 'read')
    return viewOf(this.name, this.state)
  }

  /** Admits a prompt durably and wakes the runner; never waits for execution. */
  prompt(caller: Caller, input: unknown): { receipt: Receipt; duplicate: boolean } {
    const decision = this.access.check(this.state, caller, 'prompt')
    const admission = admit(this.name, this.state, parseOrThrow(PromptSchema, input, 'INVALID_REQUEST'))
    if ('receipt' in admission) return { receipt: admission.receipt, duplicate: true }
    const { messageId, delivery, text, digest } = admission.append
    const admitted = this.record(EVENT.admitted, { messageId, delivery, text, digest }, gateHeaders(caller, decision))
    void this.wake()
    return { receipt: { id: messageId, session: this.name, sequence: admitted.seq, status: 'admitted' }, duplicate: false }
  }

  /** Stops the running turn; pending prompts stay admitted. Idle is a no-op that says so. */
  interrupt(caller: Caller): { interrupted: boolean; pending: number; message: string } {
    this.access.check(this.state, caller, 'interrupt')
    const interrupted = this.runner.interrupt(`interrupted by ${caller.id}`)
    const pending = this.state.pending.length
    return { interrupted, pending, message: interrupted ? 'the running turn was interrupted' : 'nothing was running' }
  }

  /**
   * The bridge's receiving end for an agent session: its orchestration assigns it (the
   * session is created then, owned as the orchestration is), prompts it, or cancels it
   * through the same interrupt entry point a user has. Prompts are keyed by message id, so
   * a redelivered envelope is a `duplicate`.
   */
  receive(draft: BridgeDraft): { duplicate: boolean; answer: Json } {
    if (!this.agent) throw new NeuronError('NOT_AN_AGENT', `session ${this.name} is not an orchestration's agent`, { status: 404 })
    const message = parseOrThrow(AgentMessageSchema, draft, 'INVALID_AGENT_MESSAGE')
    if (message.type === 'orchestration.agent.cancel') {
      if (!this.state.exists) return { duplicate: false, answer: { interrupted: false } }
      return { duplicate: false, answer: { interrupted: this.runner.interrupt(message.payload.reason) } }
    }
    if (message.type === 'orchestration.agent.assign' && !this.state.exists) {
      const { owner, share, model, package: pkg, orchestration } = message.payload
      if (orchestration !== this.agent.address.orchestration) {
        throw new NeuronError('NOT_YOUR_AGENT', `agent ${this.name} belongs to orchestration ${this.agent.address.orchestration}`, { status: 403 })
      }
      const resolved = this.resolveModel(model)
      const headers = [{ key: 'principal', value: `orchestration:${orchestration}` }]
      this.record(EVENT.created, { provider: resolved.provider.id, model: resolved.model.id, title: `agent for ${pkg}`, system: null, owner, share }, headers)
    }
    if (!this.state.exists) throw new NeuronError('AGENT_NOT_ASSIGNED', `agent ${this.name} was never assigned`, { status: 409 })
    const { messageId, text } = message.payload
    const admission = admit(this.name, this.state, parseOrThrow(PromptSchema, { id: messageId, text }, 'INVALID_REQUEST'))
    if ('receipt' in admission) return { duplicate: true, answer: { sequence: admission.receipt.sequence } }
    const { delivery, digest } = admission.append
    const admitted = this.record(EVENT.admitted, { messageId, delivery, text, digest })
    void this.wake()
    return { duplicate: false, answer: { sequence: admitted.seq } }
  }

  /** A page of durable events after `after`. */
  history(caller: Caller, after = 0, limit = 100): Page {
    this.access.check(this.state, caller, 'read')
    return this.ledger.byTopic(this.topic, { after, limit })
  }

  /** The denied attempts on this session; only its owner may list them. */
  denials(caller: Caller, after = 0, limit = 100) {
    this.access.check(this.state, caller, 'read')
    if (caller.id !== this.state.owner) throw new NeuronError('OWNER_REQUIRED', 'only the owner lists denials', { status: 403 })
    return this.access.denials(after, limit)
  }

  // ── Streams: SSE and hibernatable WebSockets ─────────────────────────────

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    try {
      const caller = JSON.parse(request.headers.get(CALLER_HEADER) ?? 'null') as Caller | null
      if (!caller) throw new NeuronError('TOKEN_MISSING', 'no authenticated caller', { status: 401 })
      this.access.check(this.state, caller, 'read')
      await this.spendTicket(request.headers.get(TICKET_HEADER))
      if (url.pathname.endsWith('/ws')) {
        if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
          throw new NeuronError('UPGRADE_REQUIRED', 'this endpoint speaks WebSocket', { status: 426 })
        }
        return this.subscribers.accept(caller)
      }
      if (url.pathname.endsWith('/events')) return this.subscribers.tail(afterOf(request, url))
      throw new NeuronError('NOT_FOUND', `no stream at ${url.pathname}`, { status: 404 })
    } catch (error) {
      if (!(error instanceof NeuronError)) throw error
      return Response.json({ error: error.toJSON() }, { status: error.status })
    }
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    try {
      const { caller } = ws.deserializeAttachment() as SocketAttachment
      const msg = parseOrThrow(ClientMessageSchema, readMessage(message), 'INVALID_MESSAGE')
      if (msg.type === 'ping') return ws.send(JSON.stringify({ type: 'pong', data: msg.data ?? '' }))
      if (msg.type === 'subscribe') {
        this.access.check(this.state, caller, 'read')
        return this.subscribers.subscribe(ws, msg.after)
      }
      if (msg.type === 'interrupt') return ws.send(JSON.stringify({ type: 'interrupt', ...this.interrupt(caller) }))
      const { type: _type, ...body } = msg
      ws.send(JSON.stringify({ type: 'receipt', ...this.prompt(caller, body) }))
    } catch (error) {
      const body = error instanceof NeuronError ? error.toJSON() : { code: 'INTERNAL', message: 'internal error' }
      ws.send(JSON.stringify({ type: 'error', error: body }))
    }
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.subscribers.socketsChanged()
    ws.close(code === 1005 ? 1000 : code, 'closing')
  }

  override async webSocketError(): Promise<void> {
    this.subscribers.socketsChanged()
  }

  override async alarm(): Promise<void> {
    if (this.runner.busy) return void (await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS))
    if (this.hasWork()) await this.wake()
  }

  // ── Internals ────────────────────────────────────────────────────────────

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
    // Each event's causal parent is the one before it: the session is a chain.
    const envelope = this.bus.publish(this.topic, type, payload, { parent: this.state.lastId, headers }) as Stored
    this.state = reduceSession(this.state, envelope)
    if (type === EVENT.stepEnded) this.meterTurn(payload as EventPayloads[typeof EVENT.stepEnded])
    const told = this.agent?.observe(type, payload)
    if (told) this.ctx.waitUntil(told.catch((error: unknown) => console.error('agent: step boundary not delivered', { session: this.name, error })))
    return envelope
  }

  private async wake(): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS)
    await this.runner.wake()
  }

  private hasWork(): boolean {
    return this.state.exists && (this.state.pending.length > 0 || this.state.loopOpen)
  }

  /** A stream ticket is good once: its id is remembered until it would have expired anyway. */
  private async spendTicket(header: string | null): Promise<void> {
    if (!header) return
    const { jti, exp } = JSON.parse(header) as { jti: string; exp: number }
    const key = `ticket:${jti}`
    if ((await this.ctx.storage.get(key)) !== undefined) {
      throw new NeuronError('TICKET_REPLAYED', 'this ticket was already used', { status: 401 })
    }
    await this.ctx.storage.put(key, exp)
    const spent = await this.ctx.storage.list<number>({ prefix: 'ticket:' })
    const now = Date.now() / 1000
    await this.ctx.storage.delete([...spent].filter(([, expiry]) => expiry < now).map(([k]) => k))
  }

  private meterTurn(step: EventPayloads[typeof EVENT.stepEnded]): void {
    if (!step.usage || !this.state.owner) return
    const metered = this.env.METERS.getByName(this.state.owner).turn({ session: this.name, step: step.step, usage: step.usage, cost: step.cost })
    this.ctx.waitUntil(metered.catch((error: unknown) => console.error('meter: turn not recorded', { session: this.name, error })))
  }

  /** The agent link when this session's name is an agent address: its tools speak over the bridge. */
  private agentLink(): AgentLink | null {
    const address = agentAddressOf(this.name)
    if (!address) return null
    const orchestration = this.env.ORCHESTRATIONS.getByName(address.orchestration)
    const toOrchestration = bridge({
      deadLetter: (draft, error) => void this.ledger.append({ topic: `${this.topic}.dead`, type: 'orchestration.dead-letter', author: 'stage:bridge', payload: { draft, error } }),
    })
    return new AgentLink(address, async (draft) => {
      const sent = await toOrchestration.deliver(draft, (d) => orchestration.receive(d))
      if (!sent.ok) throw new NeuronError(sent.error.code, sent.error.message, { status: 502, details: { tries: sent.error.tries } })
      return sent.answer.answer
    })
  }

  private resolveModel(ref: string) {
    return resolveModelRef(this.catalog, ref)
  }

  private costOf(provider: string, model: string, usage: Usage): number | null {
    const row = this.catalog.get(provider, model)?.model
    return row ? costOf(row, usage).total : null
  }
}

/** A client's WebSocket message as JSON, under the same size and nesting limits as an HTTP body. */
function readMessage(message: string | ArrayBuffer): unknown {
  const bytes = typeof message === 'string' ? utf8Length(message) : message.byteLength
  if (bytes > MAX_BODY_BYTES) {
    throw new NeuronError('PAYLOAD_TOO_LARGE', `a WebSocket message is ${bytes} bytes; the limit is ${MAX_BODY_BYTES}`, {
      status: 413,
      details: { maxBytes: MAX_BODY_BYTES },
    })
  }
  return parseJson(typeof message === 'string' ? message : new TextDecoder().decode(message), { what: 'a WebSocket message' })
}

function afterOf(request: Request, url: URL): number {
  const after = Number(request.headers.get('last-event-id') ?? url.searchParams.get('after') ?? 0)
  if (!Number.isInteger(after) || after < 0) {
    throw new NeuronError('INVALID_QUERY', 'after / Last-Event-ID must be a non-negative integer sequence', { status: 400 })
  }
  return after
}
