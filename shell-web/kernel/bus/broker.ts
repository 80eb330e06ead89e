/**
 * The broker: everything that arrives on an endpoint's private port passes
 * through `onMessage`. It checks the envelope, derives the caller from the
 * port (never from the message), and then either routes a call (tools.call,
 * tools.list: limits → target → policy → tool → schema → forward) or runs a
 * private action from its own table.
 *
 * Before any of that, every message counts against its endpoint: more than
 * `maxQueuedPerEndpoint` waiting at once is a flood (backlog.ts), counted before
 * the message is even read. Reading is the sender's cost too (the browser
 * deserializes a message when it is first read, inside the metered handling): a
 * refused message that cost the page more than `maxRefusedMessageMs`, or an app
 * run `kernelWorkDebtMs` past its share while another app waits, disconnects the
 * endpoint that sent it.
 *
 * @example
 * broker.attach(endpoint) // endpoint.port.onmessage now feeds the broker
 */
import { ATTACHMENTS_ANNOTATION, checkAttachment } from './attachments.ts'
import type { AuditRing } from './audit.ts'
import type { Call, Calls, Outcome } from './calls.ts'
import type { Endpoint, Endpoints, RegisteredTool } from './endpoints.ts'
import type { Grants } from '../consent/grants.ts'
import type { KernelTool } from './kernel-tools.ts'
import { clampTimeout } from './limits.ts'
import { decideGlobalCall, decideScopedCall } from '../agent/agent-policy.ts'
import type { Invocation, Invocations } from '../agent/invocations.ts'
import { acceptsPrivateAction, decideRoute } from './policy.ts'
import type { PrivateAction } from '../consent/private-actions.ts'
import type { Attribution } from '../agent/provenance.ts'
import type { Backlog } from './backlog.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { KERNEL, parseEndpointId } from '../../protocol/endpoint-id.ts'
import { type CallPayload, hasExactKeys, isId, isRecord, parseCall } from '../../protocol/envelope.ts'
import { checkJson, jsonRefusal } from '../../protocol/json-compat.ts'
import { LIMITS } from '../../protocol/limits.ts'
import { summarize } from './summary.ts'
import type { WorkBudget } from './work-budget.ts'
import type { SchemaVerdict, ValidationBudget } from '../../protocol/schema.ts'

export interface BrokerDeps {
  audit: AuditRing
  /** Each app's share of the kernel's checking time. */
  work: WorkBudget
  calls: Calls
  /** Agent Mode's invocation capabilities. */
  invocations: Invocations
  endpoints: Endpoints
  grants: Grants
  kernelTools: Map<string, KernelTool>
  privateActions: Map<string, PrivateAction>
  /** The endpoint's document is going away (its SDK said `bye`). */
  bye(ep: Endpoint): void
  /** A message of `ep` was dropped or refused unread (counts toward disconnecting a flood). */
  strike(ep: Endpoint): void
  /** Messages of each endpoint waiting for the kernel at once. */
  backlog: Backlog<Endpoint>
  /** `ep` is flooding the page (the reason goes in the audit): it is disconnected. */
  flood(ep: Endpoint, reason: string): void
  /** Is `id` an endpoint the kernel is bringing up right now (an installed app's background frame)? */
  connecting(id: string): boolean
  /** Does `app`'s manifest declare `tool` (so an endpoint of it that just connected may be about to register it)? */
  declares(app: string, tool: string): boolean
  /** Who a call is presented and recorded as, given its delegation token if any (provenance.ts). */
  attribute(ep: Endpoint, delegation: unknown): Attribution | BusErrorShape
}


export class Broker {
  /** The message being handled was refused (its cost, if high, was the sender's doing). */
  #refused = false

  constructor(private readonly k: BrokerDeps) {}

  attach(ep: Endpoint): void {
    ep.port.onmessage = (event) => {
      // Counted before it is read (reading it is what costs): a flood is cut off unread.
      if (!this.k.backlog.take(ep)) return this.k.flood(ep, `more than ${LIMITS.maxQueuedPerEndpoint} messages waiting for the kernel at once`)
      // Ports ride along only where the wire defines them (nowhere, yet): never adopt one.
      if (event.ports.length) {
        for (const port of event.ports) port.close()
        return this.#malformed(ep, 'a message transferring ports')
      }
      this.#refused = false
      const started = performance.now()
      // Whoever sends a message pays for handling it, reading it included, from its app's share of the kernel's time.
      const metered = this.k.work.meter(ep.app, () => this.onMessage(ep, event.data))
      if (!metered.ok) this.k.work.charge(ep.app, () => this.#overBudget(ep, event.data, metered.retryAfterMs))
      const took = performance.now() - started
      if (this.#refused && took > LIMITS.maxRefusedMessageMs) this.k.flood(ep, `a refused message cost the trusted page ${Math.round(took)} ms to read and check`)
      else if (this.k.work.overdrawn(ep.app)) this.k.flood(ep, `its app is more than ${LIMITS.kernelWorkDebtMs} ms past its share of the trusted page's time while other apps wait`)
    }
    ep.port.onmessageerror = () => this.#malformed(ep, 'undeserializable message')
  }

  /**
   * The sender's app has spent its share: handle only what must not be lost (results end calls,
   * cancel and bye end work), refuse an exec at once, drop the rest unread — and count a strike.
   */
  #overBudget(ep: Endpoint, data: unknown, retryAfterMs: number) {
    const type = isRecord(data) ? data.type : undefined
    if (type === 'result' || type === 'cancel' || type === 'bye') return this.onMessage(ep, data)
    this.#refused = true
    this.k.strike(ep)
    if (!ep.live) return
    if (type === 'exec' && isRecord(data) && isId(data.id)) ep.post({ type: 'result', id: data.id, error: overBudget(retryAfterMs) })
    this.k.audit.note({ caller: ep.id, callerApp: ep.app, target: KERNEL, tool: `port.${String(type).slice(0, 20)}`, status: 'error', code: 'VALIDATION_BUDGET', durationMs: 0 })
  }

  /** Every kernel tool and private action, and whether it needs the owner (see Kernel.ownerTable). */
  ownerTable(): { kernelTools: Record<string, boolean>; privateActions: Record<string, boolean> } {
    const table = (entries: Iterable<[string, { needsOwner?: true }]>) => Object.fromEntries([...entries].map(([name, action]) => [name, action.needsOwner === true]))
    return { kernelTools: table(this.k.kernelTools), privateActions: table(this.k.privateActions) }
  }

  onMessage(ep: Endpoint, data: unknown): void {
    if (!ep.live) return
    try {
      if (!isRecord(data)) return this.#malformed(ep, typeof data)
      switch (data.type) {
        case 'exec':
          return this.#exec(ep, data)
        case 'result':
          return this.k.calls.onResult(ep, data)
        case 'progress':
          return this.k.calls.onProgress(ep, data)
        case 'cancel':
          return this.k.calls.cancel(ep, data.id)
        case 'bye':
          return this.k.bye(ep)
        default:
          return this.#malformed(ep, `type ${String(data.type).slice(0, 20)}`)
      }
    } catch (error) {
      console.error('broker', error)
      this.k.audit.note({ caller: ep.id, callerApp: ep.app, target: KERNEL, tool: 'broker', status: 'error', code: 'INTERNAL', durationMs: 0, args: String(error).slice(0, 120) })
    }
  }

  #exec(ep: Endpoint, msg: Record<string, unknown>) {
    if (!isId(msg.id)) return this.#malformed(ep, 'exec without a numeric id')
    const id = msg.id
    const envelope = msg.payload
    if (!hasExactKeys(msg, ['type', 'id', 'payload'], ['attachment', 'invocation']) || !isRecord(envelope) || !hasExactKeys(envelope, ['action', 'payload']) || typeof envelope.action !== 'string') {
      return this.#refuse(ep, id, '?', '?', undefined, fail('BAD_REQUEST', 'an exec is { type, id, payload: { action, payload } }'))
    }
    const action = envelope.action.slice(0, 64)
    const payload = envelope.payload
    // Refusals of private actions are recorded for the person but kept out of what apps (and the model) can read.
    const visibility = action === 'tools.call' || action === 'tools.list' ? 'public' : 'private'
    const label = isRecord(payload) ? { target: String(payload.target ?? KERNEL).slice(0, 128), tool: String(payload.name ?? action).slice(0, 64) } : { target: KERNEL, tool: action }
    const json = checkJson(payload, LIMITS.maxPayloadBytes, LIMITS.maxDepth)
    if (!json.ok) return this.#refuse(ep, id, label.target, label.tool, undefined, jsonRefusal(json), visibility)
    // A capability is honoured only from the exact session it was given to, only while its call lasts.
    let scope: Invocation | undefined
    if ('invocation' in msg) {
      scope = visibility === 'public' ? this.k.invocations.resolve(ep, msg.invocation) : undefined
      if (!scope) return this.#refuse(ep, id, label.target, label.tool, undefined, fail('INVOCATION_INVALID', 'no live invocation of this endpoint has that capability'), visibility)
    }
    const denied = visibility === 'public' ? this.#agentPolicy(ep, label.target, label.tool, scope) : null
    if (denied) return this.#refuse(ep, id, label.target, label.tool, payload, denied, visibility)
    const privateAction = this.k.privateActions.get(action)
    let attachment: ArrayBuffer | undefined
    if ('attachment' in msg) {
      // The sidecar rides only beside a tools.call or an action that takes one; checking it reads its length, never its bytes.
      const checked = action === 'tools.call' || privateAction?.attachments ? checkAttachment(msg.attachment) : fail('ATTACHMENT_REJECTED', `${action} takes no attachment`)
      if ('code' in checked) return this.#refuse(ep, id, label.target, label.tool, undefined, checked, visibility)
      if (action === 'tools.call') return this.#call(ep, id, payload, scope, { buffer: msg.attachment as ArrayBuffer, bytes: checked.bytes })
      attachment = msg.attachment as ArrayBuffer
    }
    if (action === 'tools.call') return this.#call(ep, id, payload, scope)
    if (action === 'tools.list') return this.#list(ep, id, payload, scope)
    if (!privateAction) return this.#refuse(ep, id, KERNEL, action, payload, fail('UNKNOWN_ACTION', `no action ${action}`), visibility)
    // A payload carrying a secret (connections.set) is never summarized into the audit.
    const recorded = privateAction.redact ? undefined : payload
    if (!acceptsPrivateAction(privateAction.rule, ep.kind)) {
      return this.#refuse(ep, id, KERNEL, action, recorded, fail('PERMISSION_DENIED', `${action} is not accepted from a ${ep.kind}`), visibility)
    }
    const outcome = privateAction.run(ep, payload, attachment)
    if (!(outcome instanceof Promise)) return this.#answerPrivate(ep, id, action, recorded, outcome)
    // The trusted page performs the effect (clipboard, wallet), the person decides (agent.mode.request) or the server answers (canister.*): answer when it settles, if the sender is still there.
    void outcome.then(
      (settled) => this.#answerPrivate(ep, id, action, recorded, settled),
      (error) => this.#answerPrivate(ep, id, action, recorded, { error: fail('INTERNAL', `${action} failed: ${String(error).slice(0, 120)}`) }),
    )
  }

  #answerPrivate(ep: Endpoint, id: number, action: string, payload: unknown, outcome: Outcome) {
    if (!ep.live) return
    if ('error' in outcome) return this.#refuse(ep, id, KERNEL, action, payload, outcome.error, 'private')
    ep.post({ type: 'result', id, ok: outcome.ok })
  }

  /**
   * Agent Mode's checks on a routed call or listing, before it begins: one made under a capability
   * never asks the person and never reaches a tray; an ordinary one may not leave an app that is
   * running a call for the agent.
   */
  #agentPolicy(ep: Endpoint, target: string, tool: string, scope: Invocation | undefined): BusErrorShape | null {
    const address = target === KERNEL ? undefined : parseEndpointId(target)
    const targetApp = target === KERNEL ? KERNEL : (address?.app ?? '?')
    const needsOwner = target === KERNEL && this.k.kernelTools.get(tool)?.needsOwner === true
    const decision = scope
      ? decideScopedCall({ sourceApp: ep.app, targetApp, targetKind: target === KERNEL ? KERNEL : (address?.kind ?? 'background'), tool, needsOwner, sessionGrant: this.k.grants.view(ep.id, ep.app, targetApp).session })
      : decideGlobalCall({ sourceApp: ep.app, targetApp, appHasActiveInvocation: this.k.invocations.activeFor(ep.app) })
    return decision.allow ? null : fail(decision.code, decision.message, decision.retryAfterMs)
  }

  #call(ep: Endpoint, id: number, payload: unknown, scope: Invocation | undefined, attachment?: { buffer: ArrayBuffer; bytes: number }) {
    const p: CallPayload | null = parseCall(payload)
    if (!p) return this.#refuse(ep, id, '?', 'tools.call', payload, fail('BAD_REQUEST', 'tools.call takes exactly { target, name, arguments, timeoutMs?, progress?, delegation? }'))
    const timeoutMs = clampTimeout(p.timeoutMs)
    if (timeoutMs === null) return this.#refuse(ep, id, p.target, p.name, p.arguments, fail('BAD_REQUEST', 'timeoutMs must be a positive number'))
    const kernelTool = p.target === KERNEL ? this.k.kernelTools.get(p.name) : undefined
    const call = this.k.calls.begin(ep, id, 'tools.call', p.target, p.name, p.arguments, timeoutMs, p.progress === true, !kernelTool?.waitsForPerson)
    if ('code' in call) return this.#refuse(ep, id, p.target, p.name, p.arguments, call)
    if (scope) call.root = scope.root.id
    if (attachment && p.target === KERNEL) return this.k.calls.finish(call, { error: fail('ATTACHMENT_REJECTED', 'kernel tools take no attachment') })
    if (p.delegation !== undefined && p.target === KERNEL) return this.k.calls.finish(call, { error: fail('BAD_REQUEST', 'kernel tools take no delegation') })
    if (attachment && !this.k.calls.holdAttachment(call, attachment.bytes)) return
    if (p.target === KERNEL) return void this.#kernelTool(call, p.name, p.arguments)
    const attribution = this.k.attribute(ep, p.delegation)
    if ('code' in attribution) return this.k.calls.finish(call, { error: attribution })
    call.provenance = attribution.provenance
    const name = p.name
    const invoke = { name, arguments: p.arguments, caller: attribution.caller, progress: p.progress === true, timeoutMs }
    this.#withTarget(call, (target) => target.tools.has(name) || !this.k.declares(target.app, name), (target) => {
      const tool: RegisteredTool | undefined = target.tools.get(name)
      if (!tool) return this.k.calls.finish(call, { error: fail('UNKNOWN_TOOL', `${target.id} exposes no tool ${name}`) })
      call.attachments = tool.descriptor.annotations?.[ATTACHMENTS_ANNOTATION] === true
      if (attachment && !call.attachments) return this.k.calls.finish(call, { error: fail('ATTACHMENT_REJECTED', `${name} is not annotated ${ATTACHMENTS_ANNOTATION}`) })
      const issue = checkValue(tool.validateInput, invoke.arguments, 'input')
      if (issue) return this.k.calls.finish(call, { error: issue })
      // A nested call made for the agent gets its own capability, bound to this target session.
      const minted = scope ? this.k.invocations.mint(call, target, { parent: scope }) : undefined
      if (minted && 'code' in minted) return this.k.calls.finish(call, { error: minted })
      this.k.calls.forward(call, target, { action: 'tool.invoke', payload: invoke }, (ok) => {
        const outputIssue = checkValue(tool.validateOutput, ok, 'output')
        return outputIssue ? { error: outputIssue } : { ok }
      }, attachment?.buffer)
    })
  }

  #list(ep: Endpoint, id: number, p: unknown, scope: Invocation | undefined) {
    if (!isRecord(p) || !hasExactKeys(p, ['target'], ['timeoutMs']) || typeof p.target !== 'string') {
      return this.#refuse(ep, id, '?', 'tools.list', p, fail('BAD_REQUEST', 'tools.list takes exactly { target, timeoutMs? }'))
    }
    const timeoutMs = Math.min(clampTimeout(p.timeoutMs) ?? LIMITS.describeTimeoutMs, LIMITS.describeTimeoutMs)
    const call = this.k.calls.begin(ep, id, 'tools.list', p.target, 'tools.list', {}, timeoutMs)
    if ('code' in call) return this.#refuse(ep, id, p.target, 'tools.list', undefined, call)
    if (scope) call.root = scope.root.id
    if (p.target === KERNEL) {
      return this.k.calls.finish(call, { ok: { tools: [...this.k.kernelTools.values()].map((t) => t.descriptor) } })
    }
    // Discovery asks the live endpoint every time; only tools it still registers are listed.
    this.#withTarget(call, () => true, (target) => this.k.calls.forward(call, target, { action: 'tools.describe', payload: {} }, (ok) => listed(ok, target)))
  }

  /**
   * Target lookup and policy, shared by calls and listings; consumes a one-call grant. A call to an
   * installed app's background that is still connecting (just installed, reloading) waits for it
   * to connect and be `ready`, bounded by the call's timeout and `backgroundHandshakeWaitMs`,
   * instead of failing with UNKNOWN_TARGET; the rest of the call is then paid by the caller's app.
   * So does a call to an endpoint that is live but not `ready` yet within the same window from
   * its handshake: an app registers its tools just after it connects, so a call landing in
   * between (a tile asking its background for its state as both start) waits for the tool its
   * manifest declares rather than failing with UNKNOWN_TOOL.
   */
  #withTarget(call: Call, ready: (ep: Endpoint) => boolean, route: (target: Endpoint) => void): void {
    const live = this.k.endpoints.get(call.target)
    const starting = live ? LIMITS.backgroundHandshakeWaitMs - (Date.now() - live.connectedAt) : LIMITS.backgroundHandshakeWaitMs
    if (live && (ready(live) || starting <= 0)) {
      if (this.#admitted(call, live)) route(live)
      return
    }
    if (!live && !this.k.connecting(call.target)) return this.k.calls.finish(call, { error: fail('UNKNOWN_TARGET', `no live endpoint ${call.target}`) })
    void this.k.endpoints.whenReady(call.target, ready, starting, call.abort.signal).then((ready) => {
      if (call.abort.signal.aborted) return // the call already ended (timeout, cancel, caller gone)
      this.k.work.charge(call.caller.app, () => {
        const target = ready ?? this.k.endpoints.get(call.target)
        if (!target) return this.k.calls.finish(call, { error: fail('UNKNOWN_TARGET', `${call.target} did not connect within ${LIMITS.backgroundHandshakeWaitMs} ms`) })
        if (this.#admitted(call, target)) route(target)
      })
    })
  }

  #admitted(call: Call, target: Endpoint): boolean {
    const source = call.caller
    const decision = decideRoute({ sourceApp: source.app, targetApp: target.app, grants: this.k.grants.view(source.id, source.app, target.app) })
    if (!decision.allow) {
      this.k.calls.finish(call, { error: fail(decision.code, decision.message) })
      return false
    }
    if (decision.via === 'one-call-grant') this.k.grants.consume(source.id, target.app)
    return true
  }

  async #kernelTool(call: Call, name: string, args: unknown) {
    const tool = this.k.kernelTools.get(name)
    if (!tool) return this.k.calls.finish(call, { error: fail('UNKNOWN_TOOL', `the kernel has no tool ${name}`) })
    const issue = checkValue(tool.validate, args, 'input')
    if (issue) return this.k.calls.finish(call, { error: issue })
    let outcome: Outcome
    try {
      outcome = await tool.run(call.caller, args as never, call.abort.signal)
    } catch (error) {
      console.error('kernel tool', name, error)
      outcome = { error: fail('INTERNAL', `${name} failed`) }
    }
    // The kernel tool ran after the message's metered handling: its answer is still the caller's to pay for.
    this.k.work.charge(call.caller.app, () => this.k.calls.finish(call, outcome))
  }

  /** Refusals that never became a call still reply and still leave an audit entry (a private one for private actions). */
  #refuse(ep: Endpoint, id: number, target: string, tool: string, args: unknown, error: BusErrorShape, visibility: 'public' | 'private' = 'public') {
    this.#refused = true
    ep.post({ type: 'result', id, error })
    this.k.strike(ep) // refused before any call began: a sender that keeps drawing these is flooding
    this.k.audit.record({
      caller: ep.id,
      callerApp: ep.app,
      target,
      tool,
      status: 'error',
      code: error.code,
      durationMs: 0,
      args: args === undefined ? undefined : summarize(args, LIMITS.auditSummaryChars),
      result: error.message.slice(0, LIMITS.auditSummaryChars),
      ...(visibility === 'private' ? { private: true as const } : {}),
    })
  }

  #malformed(ep: Endpoint, what: string) {
    this.#refused = true
    this.k.strike(ep)
    this.k.audit.note({ caller: ep.id, callerApp: ep.app, target: KERNEL, tool: 'port.message', status: 'ignored', code: 'MALFORMED_MESSAGE', durationMs: 0, args: what })
  }
}

/**
 * The refusal for an app that has spent its share of the kernel's time for now.
 *
 * @example
 * ep.post({ type: 'result', id, error: overBudget(120) }) // { code: 'VALIDATION_BUDGET', …, retryAfterMs: 120 }
 */
export function overBudget(retryAfterMs: number): BusErrorShape {
  return fail('VALIDATION_BUDGET', "this app has used its share of the kernel's checking time; retry later", retryAfterMs)
}

/**
 * Schema validation within its own budget (steps and a deadline); the sender's share only admits the message.
 *
 * @example
 * const issue = checkValue(tool.validateInput, args, 'input') // null, or { code: 'SCHEMA_VIOLATION', … }
 */
export function checkValue(validate: (value: unknown, budget: ValidationBudget) => SchemaVerdict, value: unknown, which: 'input' | 'output'): BusErrorShape | null {
  const verdict = validate(value, { deadline: performance.now() + LIMITS.maxValidationMs })
  if (!verdict) return null
  return verdict.code === 'VALIDATION_BUDGET' ? fail(verdict.code, `${which}: ${verdict.reason}`, LIMITS.retryAfterMs) : fail(verdict.code, `${which} ${verdict.reason}`)
}

/** Filters a discovery answer down to descriptors the endpoint has registered, unchanged. */
function listed(ok: unknown, target: Endpoint): Outcome {
  if (!isRecord(ok) || !Array.isArray(ok.tools) || ok.tools.length > LIMITS.maxToolsPerEndpoint) {
    return { error: fail('TOOL_ERROR', 'the endpoint answered discovery with something other than { tools: [...] }') }
  }
  const tools = ok.tools.flatMap((d: unknown) => {
    const registered = isRecord(d) && typeof d.name === 'string' ? target.tools.get(d.name) : undefined
    return registered && registered.key === JSON.stringify(d) ? [registered.descriptor] : []
  })
  return { ok: { tools } }
}
