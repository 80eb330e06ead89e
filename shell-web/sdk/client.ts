/**
 * The bus client apps use. One document has one connection; every client made
 * with createMsgBusClient shares it.
 *
 * @example
 * const bus = createMsgBusClient()
 * const apps = await bus.listApps()
 * const tools = await bus.listTools('app:notes:background')
 * const result = await bus.callTool({ target: 'app:notes:background', name: 'notes_search', arguments: { query: 'roadmap' } },
 *   { timeout: 120, onProgress: (p) => render(p) })
 */
import { ToolHost } from './expose.ts'
import { callPayload } from '../protocol/envelope.ts'
import { StateChanges, follow } from './state.ts'
import { type ConnectInfo, Transport } from './transport.ts'
import type { AgentModeEnabled, AppDescription, AppSummary, AuditEntry, CallOptions, EndpointSummary, ScopedKernel, StateChange, ToolCall, ToolDescriptor, ToolHandler, ToolOptions } from './types.ts'

export interface MsgBusClient {
  /** Resolves once the kernel has connected this frame: its kernel-assigned endpoint id. */
  readonly ready: Promise<ConnectInfo>
  callTool<O = unknown>(call: ToolCall<unknown>, options?: CallOptions): Promise<O>
  /** callTool for a tool annotated `neutron:attachments`: the result and the answer's attachment, if any. */
  callToolWithAttachment<O = unknown>(call: ToolCall<unknown>, options?: CallOptions): Promise<{ result: O; attachment?: ArrayBuffer }>
  listApps(): Promise<AppSummary[]>
  describeApp(app: string): Promise<AppDescription>
  listEndpoints(): Promise<EndpointSummary[]>
  listTools(target: string): Promise<ToolDescriptor[]>
  requestPermission(request: { app: string; scope: 'call' | 'session'; reason?: string }, options?: CallOptions): Promise<{ granted: true; scope: 'call' | 'session' }>
  auditList(limit?: number): Promise<AuditEntry[]>
  openTile(app: string, params?: Record<string, string>): Promise<{ endpoint: string }>
  /**
   * Offers the person an app package by URL (`apps.install_offer`); call it from a click in your
   * tile. The kernel fetches it and the person accepts or refuses in the shell's dialog.
   *
   * @example
   * button.onclick = () => bus.offerInstall('https://example.com/counter.json').then(({ app, version }) => show(app, version))
   */
  offerInstall(url: string, options?: CallOptions): Promise<{ installed: true; app: string; version: string; hash: string; upgradedFrom: string | null }>
  exposeTool<I, O>(name: string, options: ToolOptions, handler: ToolHandler<I, O>): Promise<void>
  removeExposedTool(name: string): Promise<void>
  publishAppStateChange(topic: string, revision: number): Promise<void>
  onAppStateChange(topic: string, listener: (change: StateChange) => void): () => void
  /**
   * Asks the owner to enable one of this app's declared agent entrypoints for the agent (Agent
   * Mode). Call it synchronously from a click handler in a tile: the kernel needs the focused tile
   * and the click's transient activation. The trusted page draws the consent dialog.
   */
  requestAgentMode(entrypoint: string): Promise<AgentModeEnabled>
  agentModeStatus(): Promise<{ entrypoint: string; version: string }[]>
  disableAgentMode(entrypoint?: string): Promise<string[]>
  followAppState<S extends { revision: number }>(topic: string, view: { load(): Promise<S>; apply(snapshot: S): void; onError?(error: unknown): void; pollMs?: number }): { refresh(): Promise<void>; stop(): void }
  /** This frame's end of the private port, for measurements; the kernel trusts nothing on it. */
  rawPort(): Promise<MessagePort>
}

let parts: { transport: Transport; tools: ToolHost; state: StateChanges } | undefined

function shared() {
  if (!parts) {
    const transport = Transport.shared()
    parts = { transport, tools: new ToolHost(transport, (invocation) => {
      const { routeCall: _r, kernel: _k, ...scoped } = routing(transport, invocation)
      return scoped
    }), state: new StateChanges(transport) }
  }
  return parts
}

/**
 * Routed calls and discovery over `transport`: the app's own (global) client, or, with an
 * invocation capability, the scoped client of one call made for the agent. The capability rides
 * beside the exec, never inside what the handler sends.
 */
function routing(transport: Transport, invocation?: string) {
  const routeCall = (call: ToolCall<unknown>, options: CallOptions, onAttachment?: (a: ArrayBuffer) => void) => {
    const timeoutMs = options.timeout === undefined ? undefined : options.timeout * 1000
    const payload = callPayload({ target: call.target, name: call.name, arguments: call.arguments, timeoutMs, progress: options.onProgress ? true : undefined, delegation: options.delegation })
    // The kernel runs permissions.request without an in-flight slot (an open dialog must not block the app's calls).
    const holdsSlot = !(call.target === 'kernel' && call.name === 'permissions.request')
    const { signal, attachment } = options
    return transport.request('tools.call', payload, { holdsSlot, timeoutMs, signal, attachment, onAttachment, invocation, onProgress: options.onProgress as (v: unknown) => void })
  }
  const kernel = <O>(name: string, args: unknown, options: CallOptions = {}) => routeCall({ target: 'kernel', name, arguments: args }, options) as Promise<O>
  const scoped: ScopedKernel & { routeCall: typeof routeCall; kernel: typeof kernel } = {
    routeCall,
    kernel,
    callTool: <O>(call: ToolCall<unknown>, options: CallOptions = {}) => routeCall(call, options) as Promise<O>,
    listApps: () => kernel<{ apps: AppSummary[] }>('apps.list', {}).then((r) => r.apps),
    describeApp: (app) => kernel<AppDescription>('apps.describe', { app }),
    listEndpoints: () => kernel<{ endpoints: EndpointSummary[] }>('endpoints.list', {}).then((r) => r.endpoints),
    listTools: (target) => transport.request('tools.list', { target }, { invocation }).then((r) => (r as { tools: ToolDescriptor[] }).tools),
  }
  return scoped
}

export function createMsgBusClient(): MsgBusClient {
  const { transport, tools, state } = shared()
  const { routeCall, kernel, callTool, listApps, describeApp, listEndpoints, listTools } = routing(transport)
  const client: MsgBusClient = {
    ready: transport.ready,
    callTool,
    async callToolWithAttachment<O>(call: ToolCall<unknown>, options: CallOptions = {}) {
      let attachment: ArrayBuffer | undefined
      const result = (await routeCall(call, options, (a) => (attachment = a))) as O
      return attachment ? { result, attachment } : { result }
    },
    listApps,
    describeApp,
    listEndpoints,
    listTools,
    requestPermission: (request, options) => kernel('permissions.request', request, { timeout: 120, ...options }),
    auditList: (limit) => kernel<{ entries: AuditEntry[] }>('audit.list', limit === undefined ? {} : { limit }).then((r) => r.entries),
    openTile: (app, params) => kernel('workspace.open_tile', params ? { app, params } : { app }),
    offerInstall: (url, options) => kernel('apps.install_offer', { url }, { timeout: 300, ...options }),
    exposeTool: (name, options, handler) => tools.expose(name, options, handler),
    removeExposedTool: (name) => tools.remove(name),
    publishAppStateChange: (topic, revision) => state.publish(topic, revision),
    onAppStateChange: (topic, listener) => state.on(topic, listener),
    followAppState: (topic, view) => follow(state, topic, view),
    requestAgentMode: (entrypoint) => transport.request('agent.mode.request', { entrypoint }, { timeoutMs: 300_000 }) as Promise<AgentModeEnabled>,
    agentModeStatus: () => transport.request('agent.mode.status', {}).then((r) => (r as { enabled: { entrypoint: string; version: string }[] }).enabled),
    disableAgentMode: (entrypoint) => transport.request('agent.mode.disable', entrypoint === undefined ? {} : { entrypoint }).then((r) => (r as { disabled: string[] }).disabled),
    rawPort: () => transport.port(),
  }
  return client
}
