/**
 * Approvals (PermissionV2's "+ approval"): the gate a session's runner puts in each tool call's
 * context. The gate decides the call with the pure policy (policy.ts) over the principal's, the
 * agent profile's and the session's rules: `allow` runs, `deny` throws `PERMISSION_DENIED`, `ask`
 * records a durable `permission.requested` and parks that call (its step's other calls go on) until
 * the owner answers (`permission.answered`: once, always, reject), nobody answers in time
 * (`permission.expired`, the call fails `PERMISSION_TIMEOUT`), or an interrupt cancels the turn.
 *
 * What is durable is the events: the pending requests are a fold over them (`SessionState.asks`),
 * so a request survives a restart, and the resumed step's call asks again through the same gate,
 * which finds its request and waits for it rather than asking twice. What is in memory is only each
 * parked call's waiter (bounded by the calls of the running step) and its expiry timer; the object's
 * alarm (`expireDue`) expires a request whose timer died with an evicted isolate.
 *
 * An answer is checked before anything is written: only the owner answers; an unknown request is
 * `PERMISSION_UNKNOWN`, one already settled differently `PERMISSION_SETTLED`; the same answer again
 * is a duplicate that writes nothing. "Always" adds exactly the approved rule (`alwaysRules`) to the
 * session's config in the same synchronous step as the answer, so both commit or neither.
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { PERMISSION_INPUT_BYTES, PERMISSION_LIMITS } from '../core/limits.ts'
import type { Stored } from '../ledger/envelope.ts'
import { type Json, utf8Length } from '../ledger/json.ts'
import { EVENT, type EventPayloads, type EventType, type PermissionReply } from '../session/events/events.ts'
import type { PendingAsk, SessionState } from '../session/events/projection.ts'
import type { PermissionGate, PermissionRequest } from './gate.ts'
import { alwaysRules, decideRequest, Policy, type PermissionRule } from './policy.ts'

/** The policy's layers as the session reads them now. */
export interface PermissionLayers {
  principal?: PermissionRule[]
  profile?: PermissionRule[]
  session?: PermissionRule[]
  /** How long an ask waits (the innermost layer that sets it wins). */
  askTimeoutSeconds?: number
}

/** What approvals need of the session they run in. */
export interface ApprovalsHost {
  state(): SessionState
  record<T extends EventType>(type: T, payload: EventPayloads[T]): Stored
  /** The principal's, profile's and session's permission sections (the principal's is an RPC away). */
  layers(): Promise<PermissionLayers>
  /** Appends rules to the session's config; synchronous, so it commits with the answer. Throws a coded error when the config refuses them. */
  addRules(author: string, rules: PermissionRule[]): void
  /** A request was recorded that expires at `at`: the session keeps that deadline past an eviction (a durable timer). */
  expires?(at: number): void
  now?(): number
}

/** An answer as every surface sends it (HTTP body, WebSocket message, MCP tool input). */
export const PermissionAnswerSchema = z.strictObject({
  /** The tool call whose request is answered (`permission.requested.toolCallId`). */
  toolCallId: z.string().min(1).max(256),
  /** `once` runs the call, `always` also allows what it acts on from now on, `reject` fails it `PERMISSION_DENIED`. */
  reply: z.enum(['once', 'always', 'reject']),
  /** Why; a reject's reason reaches the model. */
  reason: z.string().max(1024).optional(),
})

/** An answer as a surface sends it. */
export interface PermissionAnswer {
  toolCallId: string
  reply: PermissionReply
  reason?: string
}

/** What answering returns. */
export interface AnswerResult {
  toolCallId: string
  reply: PermissionReply
  /** The rules an "always" added to the session's config. */
  rules: PermissionRule[]
  /** The same answer was already recorded: nothing was written. */
  duplicate: boolean
}

/** A pending request as the surfaces list it. */
export interface PendingPermission {
  toolCallId: string
  step: string
  tool: string
  source: string
  subjects: string[]
  input: unknown
  reason: string
  expiresAt: number
}

interface Waiter {
  settle(outcome: 'once' | 'always' | 'reject' | 'expired', reason?: string): void
}

/** The call the gate is asked for. */
export interface GateCall {
  step: string
  toolCallId: string
  signal: AbortSignal
}

/**
 * @example
 * const approvals = new Approvals({ state, record, layers, addRules })
 * const context = { …, permission: approvals.gate({ step, toolCallId, signal }) }
 * approvals.answer('user#ada', { toolCallId, reply: 'once' }) // the parked call runs
 */
export class Approvals {
  private readonly waiters = new Map<string, Waiter>()
  private cached: { key: string; policy: Policy } | null = null

  constructor(private readonly host: ApprovalsHost) {}

  /** The gate of one call: what the tool awaits before its side effect. */
  gate(call: GateCall): PermissionGate {
    return { assert: (request) => this.assert(call, request) }
  }

  /** The requests waiting for an answer, oldest first. */
  pending(): PendingPermission[] {
    return Object.entries(this.host.state().asks ?? {})
      .sort(([, a], [, b]) => a.seq - b.seq)
      .map(([toolCallId, ask]) => ({ toolCallId, step: ask.step, tool: ask.tool, source: ask.source, subjects: ask.subjects, input: ask.input, reason: ask.reason, expiresAt: ask.expiresAt }))
  }

  /**
   * The owner's answer to a pending request; checked in full before anything is written.
   *
   * @example
   * approvals.answer(caller.id, { toolCallId: 'c1', reply: 'reject', reason: 'not on main' })
   */
  answer(author: string, answer: PermissionAnswer): AnswerResult {
    const state = this.host.state()
    if (author !== state.owner) throw new NeuronError('PERMISSION_OWNER_ONLY', "only the session's owner answers its permission requests", { status: 403 })
    const { toolCallId, reply } = answer
    const ask = (state.asks ?? {})[toolCallId]
    if (!ask) {
      const settled = (state.settledAsks ?? []).find((entry) => entry.toolCallId === toolCallId)
      if (!settled) {
        throw new NeuronError('PERMISSION_UNKNOWN', `no permission request for tool call ${toolCallId.slice(0, 128)}`, { status: 404, details: { toolCallId: toolCallId.slice(0, 128) } })
      }
      if (settled.outcome === reply) return { toolCallId, reply, rules: [], duplicate: true }
      throw new NeuronError('PERMISSION_SETTLED', `the request of tool call ${toolCallId.slice(0, 128)} is already settled (${settled.outcome})`, {
        status: 409,
        details: { toolCallId: toolCallId.slice(0, 128), outcome: settled.outcome },
      })
    }
    const rules = reply === 'always' ? alwaysRules({ tool: ask.tool, source: ask.source, subjects: ask.subjects }) : []
    // Synchronous from here: the rules and the answer commit together, or (a refused config) neither.
    if (rules.length > 0) this.host.addRules(author, rules)
    const payload: EventPayloads[typeof EVENT.permissionAnswered] = { step: ask.step, toolCallId, reply, by: author }
    if (answer.reason) payload.reason = answer.reason
    if (rules.length > 0) payload.rules = rules as Json[]
    this.host.record(EVENT.permissionAnswered, payload)
    this.waiters.get(toolCallId)?.settle(reply, answer.reason)
    return { toolCallId, reply, rules, duplicate: false }
  }

  /**
   * Expires every pending request whose time is up (the alarm's part: a timer that died with an
   * evicted isolate). Returns the earliest expiry still pending, for the next alarm.
   */
  expireDue(now = this.now()): number | null {
    let next: number | null = null
    for (const [toolCallId, ask] of Object.entries(this.host.state().asks ?? {})) {
      if (ask.expiresAt <= now) this.expire(toolCallId)
      else next = next === null ? ask.expiresAt : Math.min(next, ask.expiresAt)
    }
    return next
  }

  private async assert(call: GateCall, request: PermissionRequest): Promise<void> {
    const { toolCallId, signal } = call
    signal.throwIfAborted()
    // A resumed step's call asks again: its request (or how it ended) is already in the fold.
    const known = this.known(toolCallId)
    if (known) return this.follow(call, known)
    const policy = await this.policy()
    signal.throwIfAborted()
    const decision = decideRequest(policy.policy, request)
    if (decision.action === 'allow') return
    if (decision.action === 'deny') throw denied(`${request.tool} is denied: ${decision.reason}`)
    const again = this.known(toolCallId)
    if (again) return this.follow(call, again)
    this.host.record(EVENT.permissionRequested, {
      step: call.step,
      toolCallId,
      tool: request.tool,
      source: request.source,
      subjects: request.subjects,
      input: boundedInput(request.input),
      reason: request.reason ?? decision.reason,
      expiresAt: this.now() + policy.askSeconds * 1000,
    })
    this.host.expires?.(this.host.state().asks[toolCallId]!.expiresAt)
    return this.park(call, this.host.state().asks[toolCallId]!)
  }

  /** Where the fold says a call's request stands: pending, or how it ended. */
  private known(toolCallId: string): { pending: PendingAsk } | { outcome: string } | null {
    const state = this.host.state()
    const pending = (state.asks ?? {})[toolCallId]
    if (pending) return { pending }
    const settled = (state.settledAsks ?? []).find((entry) => entry.toolCallId === toolCallId)
    return settled ? { outcome: settled.outcome } : null
  }

  private follow(call: GateCall, known: { pending: PendingAsk } | { outcome: string }): Promise<void> {
    if ('pending' in known) return this.park(call, known.pending)
    return outcomeOf(known.outcome)
  }

  /** Waits for the request's end: the answer, its expiry, or the turn's abort. */
  private park(call: GateCall, ask: PendingAsk): Promise<void> {
    const { toolCallId, signal } = call
    if (this.waiters.has(toolCallId)) throw new NeuronError('PERMISSION_DUPLICATE', `tool call ${toolCallId} is already waiting for its answer`, { status: 409 })
    return new Promise<void>((resolve, reject) => {
      const end = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        this.waiters.delete(toolCallId)
      }
      const onAbort = () => {
        end()
        reject(signal.reason)
      }
      // setTimeout holds at most 2^31-1 ms (~24.8 days); the longest ask is 7 days.
      const timer = setTimeout(() => this.expire(toolCallId), Math.max(0, ask.expiresAt - this.now()))
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiters.set(toolCallId, {
        settle: (outcome, reason) => {
          end()
          outcomeOf(outcome, reason).then(resolve, reject)
        },
      })
    })
  }

  private expire(toolCallId: string): void {
    const ask = (this.host.state().asks ?? {})[toolCallId]
    if (ask) this.host.record(EVENT.permissionExpired, { step: ask.step, toolCallId })
    this.waiters.get(toolCallId)?.settle('expired')
  }

  /** The policy over the layers as they are now, compiled once per distinct set of layers. */
  private async policy(): Promise<{ policy: Policy; askSeconds: number }> {
    const layers = await this.host.layers()
    const askSeconds = layers.askTimeoutSeconds ?? PERMISSION_LIMITS.askSeconds
    const key = JSON.stringify([layers.principal, layers.profile, layers.session])
    if (this.cached?.key !== key) this.cached = { key, policy: new Policy({ principal: layers.principal, profile: layers.profile, session: layers.session }) }
    return { policy: this.cached.policy, askSeconds }
  }

  private now(): number {
    return this.host.now?.() ?? Date.now()
  }
}

/** A settled request's outcome as the call sees it. */
function outcomeOf(outcome: string, reason?: string): Promise<void> {
  if (outcome === 'once' || outcome === 'always') return Promise.resolve()
  if (outcome === 'expired') return Promise.reject(new NeuronError('PERMISSION_TIMEOUT', 'nobody answered the permission request in time', { status: 408 }))
  if (outcome === 'reject') return Promise.reject(denied(reason ? `the owner rejected the call: ${reason}` : 'the owner rejected the call'))
  return Promise.reject(denied('the permission request was cancelled'))
}

function denied(message: string): NeuronError {
  return new NeuronError('PERMISSION_DENIED', message, { status: 403 })
}

/** The input a person is shown, bounded: past `PERMISSION_INPUT_BYTES` of JSON it is a preview. */
function boundedInput(input: unknown): Json {
  const json = JSON.stringify(input ?? null) ?? 'null'
  const bytes = utf8Length(json)
  if (bytes <= PERMISSION_INPUT_BYTES) return JSON.parse(json) as Json
  return { preview: json.slice(0, PERMISSION_INPUT_BYTES / 4), truncated: true, bytes }
}
