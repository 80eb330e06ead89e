/**
 * The agent as a caller on the bus. A session's model reaches live app tools
 * only through here: a call names an enabled entrypoint, runs as a root
 * invocation on that app's resident background with a fresh capability, is
 * validated at both ends, limited, audited (the entry names its root), and
 * ends exactly once like every routed call. The agent's end is a kernel-owned
 * MessageChannel, so its calls use the same `Calls` bookkeeping as an app's.
 *
 * @example
 * const outcome = await kernel.agent.call({ name: 'notes_search', arguments: { query: 'roadmap' }, onProgress, signal })
 * // { ok: { matches: [...] } } or { error: { code: 'AGENT_MODE_REVOKED', … } }
 */
import type { AgentMode } from './agent-mode.ts'
import { checkValue } from '../bus/broker.ts'
import type { Calls } from '../bus/calls.ts'
import { Endpoint, type Endpoints } from '../bus/endpoints.ts'
import type { Invocations } from './invocations.ts'
import type { AppManifest } from '../installs/manifest.ts'
import { clampTimeout } from '../bus/limits.ts'
import { type BusErrorShape, fail, isCode } from '../../protocol/codes.ts'
import { endpointId } from '../../protocol/endpoint-id.ts'
import { type InvokePayload, isId, isRecord } from '../../protocol/envelope.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** The caller id every agent call carries (in the audit and in the handler's `context.caller`). */
export const AGENT = 'agent'

export interface AgentCallDeps {
  agentMode: AgentMode
  calls: Calls
  invocations: Invocations
  endpoints: Endpoints
  manifest(app: string): AppManifest | undefined
}

export interface AgentCall {
  name: string
  arguments: unknown
  timeoutMs?: number
  onProgress?: (value: unknown) => void
  /** Aborting stops the root: the handler's `context.signal` aborts, and so does every nested call. */
  signal?: AbortSignal
}

export type AgentOutcome = { ok: unknown } | { error: BusErrorShape }

export class AgentCalls {
  readonly #ep: Endpoint
  readonly #pending = new Map<number, { resolve(outcome: AgentOutcome): void; onProgress?: (value: unknown) => void }>()
  #nextId = 1

  constructor(private readonly k: AgentCallDeps) {
    const channel = new MessageChannel()
    this.#ep = new Endpoint(AGENT, AGENT, 'agent', channel.port1)
    channel.port2.onmessage = (event) => this.#answer(event.data)
  }

  /** Tool descriptors of the enabled entrypoints whose background is live (what the bridge offers). */
  offered(): { name: string; description: string; inputSchema: unknown }[] {
    return this.k.agentMode.enabled().flatMap((e) => {
      const tool = this.k.endpoints.get(endpointId({ app: e.app, kind: 'background' }))?.tools.get(e.entrypoint)
      return tool && this.k.manifest(e.app)?.version === e.version ? [{ name: e.entrypoint, description: tool.descriptor.description, inputSchema: tool.descriptor.inputSchema }] : []
    })
  }

  /** Runs one root invocation; never throws. */
  call(request: AgentCall): Promise<AgentOutcome> {
    const enabled = this.k.agentMode.find(request.name)
    if (!enabled || this.k.manifest(enabled.app)?.version !== enabled.version) {
      return Promise.resolve({ error: fail('AGENT_MODE_REVOKED', `Agent Mode is not enabled for ${request.name}`) })
    }
    const timeoutMs = clampTimeout(request.timeoutMs) ?? LIMITS.defaultTimeoutMs
    const reqId = this.#nextId++
    const targetId = endpointId({ app: enabled.app, kind: 'background' })
    const call = this.k.calls.begin(this.#ep, reqId, 'tools.call', targetId, request.name, request.arguments, timeoutMs, !!request.onProgress)
    if ('code' in call) return Promise.resolve({ error: call })
    const answered = new Promise<AgentOutcome>((resolve) => this.#pending.set(reqId, { resolve, onProgress: request.onProgress }))
    const stop = () => this.k.calls.cancel(this.#ep, reqId)
    if (request.signal?.aborted) stop()
    else request.signal?.addEventListener('abort', stop, { once: true })
    void this.k.endpoints.whenReady(targetId, (ep) => ep.tools.has(request.name), LIMITS.backgroundHandshakeWaitMs, call.abort.signal).then((target) => {
      if (call.abort.signal.aborted) return
      const tool = target?.tools.get(request.name)
      if (!target || !tool) return this.k.calls.finish(call, { error: fail('UNKNOWN_TARGET', `${targetId} does not expose ${request.name} now`) })
      const issue = checkValue(tool.validateInput, request.arguments, 'input')
      if (issue) return this.k.calls.finish(call, { error: issue })
      const minted = this.k.invocations.mint(call, target, { root: { id: this.k.invocations.rootId(), ...enabled } })
      if ('code' in minted) return this.k.calls.finish(call, { error: minted })
      const invoke: InvokePayload = { name: request.name, arguments: request.arguments, caller: { endpoint: AGENT, app: AGENT }, progress: !!request.onProgress, timeoutMs }
      this.k.calls.forward(call, target, { action: 'tool.invoke', payload: invoke }, (ok) => {
        const outputIssue = checkValue(tool.validateOutput, ok, 'output')
        return outputIssue ? { error: outputIssue } : { ok }
      })
    })
    return answered.finally(() => request.signal?.removeEventListener('abort', stop))
  }

  /** Routed calls the agent has open now. */
  get open(): number {
    return this.k.calls.openFor(this.#ep)
  }

  #answer(msg: unknown) {
    if (!isRecord(msg) || !isId(msg.id)) return
    const pending = this.#pending.get(msg.id)
    if (!pending) return
    if (msg.type === 'progress') return pending.onProgress?.(msg.value)
    if (msg.type !== 'result') return
    this.#pending.delete(msg.id)
    const error = msg.error
    if (isRecord(error) && isCode(error.code)) pending.resolve({ error: error as unknown as BusErrorShape })
    else pending.resolve({ ok: msg.ok })
  }
}
