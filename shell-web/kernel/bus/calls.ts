/**
 * Routed calls in flight. Each one is bound to its exact caller endpoint (and
 * request id) and, once forwarded, to its exact target endpoint (and kernel
 * invocation id). Results and progress are accepted only from that target
 * session; everything else is late or foreign, dropped and audited. Every call
 * ends exactly once — result, error, timeout, cancel, or an endpoint going
 * away — and that end is what the audit records.
 *
 * @example
 * const call = calls.begin(caller, 7, 'tools.call', 'app:notes:background', 'notes_search', args, 30_000)
 * if ('code' in call) return reply(call)
 * calls.forward(call, target, { action: 'tool.invoke', payload }, (ok) => ({ ok }))
 */
import { ATTACHMENTS_ANNOTATION, AttachmentBudget, type Hold, checkAttachment } from './attachments.ts'
import type { AuditRing } from './audit.ts'
import type { Endpoint } from './endpoints.ts'
import { InFlight, type ProgressVerdict, judgeProgress } from './limits.ts'
import { summarize } from './summary.ts'
import { type BusErrorShape, fail, isCode } from '../../protocol/codes.ts'
import { hasExactKeys, isId, isRecord } from '../../protocol/envelope.ts'
import { checkJson, jsonRefusal } from '../../protocol/json-compat.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** How a call ends; a result may carry the target's attachment, passed on (transferred) to the caller. */
export type Outcome = { ok: unknown; attachment?: ArrayBuffer } | { error: BusErrorShape }

export interface Call {
  caller: Endpoint
  reqId: number
  action: string
  target: string
  tool: string
  started: number
  args: string
  timeoutMs: number
  timer: ReturnType<typeof setTimeout>
  /** Aborted when the call ends early (timeout, cancel, caller gone): kernel tools stop waiting. */
  abort: AbortController
  targetEp?: Endpoint
  kid?: number
  wantsProgress: boolean
  /** Whether the call holds one of its caller's in-flight slots (a request waiting for the person does not). */
  slot: boolean
  /** The caller's attachment, reserved until the call ends. */
  attachment?: Hold
  /** The target tool takes (and may answer with) an attachment. */
  attachments: boolean
  progress: number
  progressLimitAudited: boolean
  accept?: (ok: unknown) => Outcome
  /** Whose call this is, when not simply the caller's (see provenance.ts). */
  provenance?: { kind: 'delegated'; origin: { endpoint: string; app: string } } | { kind: 'intermediate' }
  /** Agent Mode: the invocation capability sent to the target beside the call (see invocations.ts). */
  capability?: string
  /** Agent Mode: the root invocation this call was made for, named in its audit entry. */
  root?: string
  /** Runs once when the call ends, however it ends (the capability dies here). */
  ended?: () => void
}

/** Error codes a target endpoint may report; anything else becomes TOOL_ERROR. */
const ENDPOINT_CODES = new Set(['TOOL_ERROR', 'ATTACHMENT_REJECTED', 'ATTACHMENT_TOO_LARGE', 'SCHEMA_VIOLATION', 'UNKNOWN_TOOL', 'CANCELLED', 'NOT_JSON_COMPATIBLE', 'PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_DEEP', 'VALIDATION_BUDGET'])

export class Calls {
  readonly inFlight = new InFlight()
  readonly attachments = new AttachmentBudget()
  #byCaller = new Map<Endpoint, Map<number, Call>>()
  #byTarget = new Map<Endpoint, Map<number, Call>>()
  #nextKid = 1
  #ended = new Set<(call: Call) => void>()

  constructor(
    private readonly audit: AuditRing,
    /** A message of `ep` was dropped unread (counts toward disconnecting a flood). */
    private readonly strike: (ep: Endpoint) => void = () => {},
  ) {}

  /**
   * Opens a call: claims an in-flight slot (unless `slot` is false: a request that waits for the
   * person, bounded by the pending-grant limits instead) and arms the timeout.
   */
  begin(caller: Endpoint, reqId: number, action: string, target: string, tool: string, args: unknown, timeoutMs: number, wantsProgress = false, slot = true): Call | BusErrorShape {
    const mine = this.#byCaller.get(caller)
    if (mine?.has(reqId)) return fail('BAD_REQUEST', `request id ${reqId} is already in flight`)
    if (slot) {
      const taken = this.inFlight.take(caller.id)
      if (!taken.ok) return fail('TOO_MANY_IN_FLIGHT', `at most ${LIMITS.maxInFlightPerSource} routed calls in flight per endpoint`, taken.retryAfterMs)
    }
    const call: Call = {
      caller,
      reqId,
      action,
      target,
      tool,
      started: performance.now(),
      args: summarize(args, LIMITS.auditSummaryChars),
      timeoutMs,
      timer: setTimeout(() => this.#timeout(call), timeoutMs),
      abort: new AbortController(),
      wantsProgress,
      slot,
      attachments: false,
      progress: 0,
      progressLimitAudited: false,
    }
    if (mine) mine.set(reqId, call)
    else this.#byCaller.set(caller, new Map([[reqId, call]]))
    return call
  }

  /**
   * Reserves the caller's attachment for the whole call (released when it ends, however it ends),
   * which ends by `maxAttachmentHoldMs` at the latest. On refusal the call ends with
   * ATTACHMENT_BUDGET and false is returned.
   */
  holdAttachment(call: Call, bytes: number): boolean {
    const holdMs = Math.min(call.timeoutMs, LIMITS.maxAttachmentHoldMs)
    const hold: Hold = {
      owner: call.caller,
      app: call.caller.app,
      bytes,
      until: call.started + holdMs,
      revoke: () => this.finish(call, { error: fail('ATTACHMENT_BUDGET', 'ended to serve another app: this app held more than its share of the shell\'s attachment budget') }, 'ATTACHMENT_BUDGET'),
    }
    const refused = this.attachments.reserve(hold)
    if (refused) {
      this.finish(call, { error: refused })
      return false
    }
    call.attachment = hold
    if (holdMs < call.timeoutMs) {
      clearTimeout(call.timer)
      call.timer = setTimeout(() => this.finish(call, { error: fail('TIMEOUT', `a call holding an attachment ends within ${LIMITS.maxAttachmentHoldMs} ms`) }, 'TIMEOUT'), holdMs)
    }
    return true
  }

  /** Sends the call on to its target endpoint (transferring `attachment`); `accept` vets the target's ok value. */
  forward(call: Call, target: Endpoint, payload: { action: string; payload: unknown }, accept: (ok: unknown) => Outcome, attachment?: ArrayBuffer): void {
    const kid = this.#nextKid++
    call.targetEp = target
    call.kid = kid
    call.accept = accept
    const open = this.#byTarget.get(target)
    if (open) open.set(kid, call)
    else this.#byTarget.set(target, new Map([[kid, call]]))
    const invocation = call.capability ? { invocation: call.capability } : {}
    target.post(attachment ? { type: 'exec', id: kid, payload, attachment, ...invocation } : { type: 'exec', id: kid, payload, ...invocation }, attachment ? [attachment] : [])
  }

  /** Ends a call exactly once: reply (if the caller is still live), release, audit. */
  finish(call: Call, outcome: Outcome, notifyTarget?: string): void {
    const mine = this.#byCaller.get(call.caller)
    if (mine?.get(call.reqId) !== call) return
    mine.delete(call.reqId)
    for (const listener of this.#ended) listener(call)
    if (!mine.size) this.#byCaller.delete(call.caller)
    clearTimeout(call.timer)
    if (call.slot) this.inFlight.release(call.caller.id)
    if (call.attachment) this.attachments.release(call.attachment)
    if ('error' in outcome) call.abort.abort()
    if (call.targetEp && call.kid !== undefined) {
      this.#byTarget.get(call.targetEp)?.delete(call.kid)
      if (notifyTarget) call.targetEp.post({ type: 'cancel', id: call.kid, reason: notifyTarget })
    }
    if ('ok' in outcome && outcome.attachment) call.caller.post({ type: 'result', id: call.reqId, ok: outcome.ok, attachment: outcome.attachment }, [outcome.attachment])
    else if ('ok' in outcome) call.caller.post({ type: 'result', id: call.reqId, ok: outcome.ok })
    else call.caller.post({ type: 'result', id: call.reqId, error: outcome.error })
    this.audit.record({
      caller: call.caller.id,
      callerApp: call.caller.app,
      target: call.target,
      tool: call.tool,
      status: 'ok' in outcome ? 'ok' : 'error',
      code: 'error' in outcome ? outcome.error.code : undefined,
      durationMs: Math.round((performance.now() - call.started) * 100) / 100,
      args: call.args,
      result: 'ok' in outcome ? summarize(outcome.ok, LIMITS.auditSummaryChars) : outcome.error.message.slice(0, LIMITS.auditSummaryChars),
      ...(call.provenance ? { provenance: call.provenance.kind } : {}),
      ...(call.provenance?.kind === 'delegated' ? { origin: call.provenance.origin.endpoint } : {}),
      ...(call.root ? { root: call.root } : {}),
    })
    call.ended?.()
  }

  /** Runs `listener` whenever a call ends (after its caller's bookkeeping, before its reply). */
  onEnd(listener: (call: Call) => void): void {
    this.#ended.add(listener)
  }

  /** The open tools.call that `target` is answering as invocation `kid`, if any. */
  invocation(target: Endpoint, kid: number): Call | undefined {
    const call = this.#byTarget.get(target)?.get(kid)
    return call?.action === 'tools.call' ? call : undefined
  }

  /** Is `ep` answering at least one tools.call right now? */
  answering(ep: Endpoint): boolean {
    return [...(this.#byTarget.get(ep)?.values() ?? [])].some((call) => call.action === 'tools.call')
  }

  /** A target answered invocation `msg.id`. */
  onResult(target: Endpoint, msg: Record<string, unknown>): void {
    const call = isId(msg.id) ? this.#byTarget.get(target)?.get(msg.id) : undefined
    if (!call) return this.#late(target, 'LATE_RESULT', 'result')
    const hasOk = 'ok' in msg
    if (!(hasExactKeys(msg, ['type', 'id'], ['ok', 'error', 'attachment']) && hasOk !== 'error' in msg)) {
      return this.finish(call, { error: fail('TOOL_ERROR', 'the target sent a malformed result') })
    }
    if (!hasOk) return this.finish(call, { error: sanitize(msg.error) })
    const json = checkJson(msg.ok, LIMITS.maxPayloadBytes, LIMITS.maxDepth)
    if (!json.ok) return this.finish(call, { error: jsonRefusal(json, 'result ') })
    const outcome = call.accept ? call.accept(msg.ok) : { ok: msg.ok }
    if (!('attachment' in msg) || 'error' in outcome) return this.finish(call, outcome)
    this.finish(call, this.#answerAttachment(call, target, msg.attachment, outcome.ok))
  }

  /**
   * The target answered with an attachment: only for a tool that takes them, within the size
   * bound and the target's and the shell's budgets (held only while the kernel passes it on).
   */
  #answerAttachment(call: Call, target: Endpoint, attachment: unknown, ok: unknown): Outcome {
    if (!call.attachments) return { error: fail('ATTACHMENT_REJECTED', `${call.tool} is not annotated ${ATTACHMENTS_ANNOTATION}; its answer carried an attachment`) }
    const checked = checkAttachment(attachment)
    if ('code' in checked) return { error: checked }
    const hold: Hold = { owner: target, app: target.app, bytes: checked.bytes, until: performance.now() }
    const refused = this.attachments.reserve(hold)
    if (refused) return { error: refused }
    this.attachments.release(hold) // handed over to the caller in the same turn
    return { ok, attachment: attachment as ArrayBuffer }
  }

  /** A target reported progress for invocation `msg.id`. */
  onProgress(target: Endpoint, msg: Record<string, unknown>): void {
    const call = isId(msg.id) ? this.#byTarget.get(target)?.get(msg.id) : undefined
    if (!call || call.action !== 'tools.call') return this.#late(target, 'LATE_PROGRESS', 'progress')
    // The rate comes first and costs nothing: a flood is dropped before any of it is read.
    const verdict: ProgressVerdict = target.progress.take()
      ? judgeProgress(msg.value, call.progress)
      : { forward: false, code: 'PROGRESS_LIMIT', reason: `more than ${LIMITS.progressBurst} progress events at once (${LIMITS.progressPerSecond}/s)` }
    if (!verdict.forward) {
      this.strike(target)
      if (!target.live) return
      if (verdict.code === 'PROGRESS_LIMIT' && call.progressLimitAudited) return
      call.progressLimitAudited ||= verdict.code === 'PROGRESS_LIMIT'
      this.audit.note({ caller: target.id, callerApp: target.app, target: call.caller.id, tool: call.tool, status: 'ignored', code: verdict.code, durationMs: 0, args: verdict.reason })
      return
    }
    call.progress++
    if (call.wantsProgress) call.caller.post({ type: 'progress', id: call.reqId, value: msg.value })
  }

  /** The caller gave up on request `reqId`. */
  cancel(caller: Endpoint, reqId: unknown): void {
    const call = isId(reqId) ? this.#byCaller.get(caller)?.get(reqId) : undefined
    if (call) this.finish(call, { error: fail('CANCELLED', 'cancelled by the caller') }, 'CANCELLED')
  }

  /** An endpoint went away: its calls as caller and as target end now. */
  endpointGone(ep: Endpoint): void {
    for (const call of [...(this.#byTarget.get(ep)?.values() ?? [])]) {
      this.finish(call, { error: fail('ENDPOINT_GONE', `${ep.id} went away during the call`) })
    }
    this.#byTarget.delete(ep)
    for (const call of [...(this.#byCaller.get(ep)?.values() ?? [])]) {
      this.finish(call, { error: fail('ENDPOINT_GONE', `the caller ${ep.id} went away`) }, 'ENDPOINT_GONE')
    }
  }

  /** Calls currently open for `caller` (for tests and the UI). */
  openFor(caller: Endpoint): number {
    return this.#byCaller.get(caller)?.size ?? 0
  }

  #timeout(call: Call) {
    this.finish(call, { error: fail('TIMEOUT', `no answer within ${call.timeoutMs} ms`) }, 'TIMEOUT')
  }

  #late(source: Endpoint, code: 'LATE_RESULT' | 'LATE_PROGRESS', what: string) {
    this.strike(source)
    if (!source.live) return
    this.audit.note({ caller: source.id, callerApp: source.app, target: 'kernel', tool: what, status: 'ignored', code, durationMs: 0 })
  }
}

function sanitize(error: unknown): BusErrorShape {
  if (!isRecord(error)) return fail('TOOL_ERROR', 'the target failed')
  const code = isCode(error.code) && ENDPOINT_CODES.has(error.code) ? error.code : 'TOOL_ERROR'
  const message = typeof error.message === 'string' ? error.message.slice(0, LIMITS.maxErrorMessageChars) : 'the target failed'
  return fail(code, message)
}
