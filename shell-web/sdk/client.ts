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
import { StateChanges, follow } from './state.ts'
import { type ConnectInfo, Transport } from './transport.ts'
import type { AppDescription, AppSummary, AuditEntry, CallOptions, EndpointSummary, StateChange, ToolCall, ToolDescriptor, ToolHandler, ToolOptions } from './types.ts'

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
  exposeTool<I, O>(name: string, options: ToolOptions, handler: ToolHandler<I, O>): Promise<void>
  removeExposedTool(name: string): Promise<void>
  publishAppStateChange(topic: string, revision: number): Promise<void>
  onAppStateChange(topic: string, listener: (change: StateChange) => void): () => void
  followAppState<S extends { revision: number }>(topic: string, view: { load(): Promise<S>; apply(snapshot: S): void; onError?(error: unknown): void; pollMs?: number }): { refresh(): Promise<void>; stop(): void }
  /** This frame's end of the private port, for measurements; the kernel trusts nothing on it. */
  rawPort(): Promise<MessagePort>
}

let parts: { transport: Transport; tools: ToolHost; state: StateChanges } | undefined

function shared() {
  if (!parts) {
    const transport = Transport.shared()
    parts = { transport, tools: new ToolHost(transport), state: new StateChanges(transport) }
  }
  return parts
}

export function createMsgBusClient(): MsgBusClient {
  const { transport, tools, state } = shared()
  const kernel = <O>(name: string, args: unknown, options?: CallOptions) => client.callTool<O>({ target: 'kernel', name, arguments: args }, options)
  const routeCall = (call: ToolCall<unknown>, options: CallOptions, onAttachment?: (a: ArrayBuffer) => void) => {
    const timeoutMs = options.timeout === undefined ? undefined : options.timeout * 1000
    const payload = { target: call.target, name: call.name, arguments: call.arguments, ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(options.onProgress ? { progress: true } : {}), ...(options.delegation === undefined ? {} : { delegation: options.delegation }) }
    // The kernel runs permissions.request without an in-flight slot (an open dialog must not block the app's calls).
    const holdsSlot = !(call.target === 'kernel' && call.name === 'permissions.request')
    const { signal, attachment } = options
    return transport.request('tools.call', payload, { holdsSlot, timeoutMs, signal, attachment, onAttachment, onProgress: options.onProgress as (v: unknown) => void })
  }
  const client: MsgBusClient = {
    ready: transport.ready,
    callTool: <O>(call: ToolCall<unknown>, options: CallOptions = {}) => routeCall(call, options) as Promise<O>,
    async callToolWithAttachment<O>(call: ToolCall<unknown>, options: CallOptions = {}) {
      let attachment: ArrayBuffer | undefined
      const result = (await routeCall(call, options, (a) => (attachment = a))) as O
      return attachment ? { result, attachment } : { result }
    },
    listApps: () => kernel<{ apps: AppSummary[] }>('apps.list', {}).then((r) => r.apps),
    describeApp: (app) => kernel<AppDescription>('apps.describe', { app }),
    listEndpoints: () => kernel<{ endpoints: EndpointSummary[] }>('endpoints.list', {}).then((r) => r.endpoints),
    listTools: (target) => transport.request('tools.list', { target }).then((r) => (r as { tools: ToolDescriptor[] }).tools),
    requestPermission: (request, options) => kernel('permissions.request', request, { timeout: 120, ...options }),
    auditList: (limit) => kernel<{ entries: AuditEntry[] }>('audit.list', limit === undefined ? {} : { limit }).then((r) => r.entries),
    openTile: (app, params) => kernel('workspace.open_tile', params ? { app, params } : { app }),
    exposeTool: (name, options, handler) => tools.expose(name, options, handler),
    removeExposedTool: (name) => tools.remove(name),
    publishAppStateChange: (topic, revision) => state.publish(topic, revision),
    onAppStateChange: (topic, listener) => state.on(topic, listener),
    followAppState: (topic, view) => follow(state, topic, view),
    rawPort: () => transport.port(),
  }
  return client
}
