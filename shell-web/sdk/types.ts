/**
 * Public types of the app SDK.
 *
 * @example
 * const options: ToolOptions = { title: 'Search', description: 'Search notes', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export interface ToolOptions {
  title: string
  description: string
  /** JSON Schema 2020-12 (see docs/shell.md for what the kernel accepts). */
  inputSchema: object | boolean
  outputSchema: object | boolean
  /** Accept one attachment per call (and allow answering with one): the `neutron:attachments` annotation. */
  attachments?: boolean
}

export interface ToolContext {
  /** The kernel-derived caller; never something the caller claimed. */
  caller: { endpoint: string; app: string }
  /** Aborts when the kernel cancels the invocation (timeout, caller gone or cancelled). */
  signal: AbortSignal
  /** Reports JSON progress (≤ 64 KiB) before the result; false when it was not sent. */
  reportProgress(value: Json): boolean
  /** The caller's attachment, for a tool exposed with `attachments: true` (transferred to this frame). */
  attachment?: ArrayBuffer
  /**
   * Present when the call was made for the agent (Agent Mode): the client for nested calls, carrying
   * this invocation's provenance. While such a call runs, the app's ordinary client may not call
   * other apps or the kernel (SCOPED_CONTEXT_REQUIRED); use this one.
   */
  kernel?: ScopedKernel
}

/** The scoped client a handler gets for a call made for the agent (`context.kernel`). */
export interface ScopedKernel {
  callTool<O = unknown>(call: ToolCall<unknown>, options?: CallOptions): Promise<O>
  listTools(target: string): Promise<ToolDescriptor[]>
  listApps(): Promise<AppSummary[]>
  describeApp(app: string): Promise<AppDescription>
  listEndpoints(): Promise<EndpointSummary[]>
}

/** What `agent.mode.request` answers once the owner allowed it (or it was allowed already). */
export interface AgentModeEnabled {
  enabled: true
  app: string
  version: string
  entrypoint: string
}

export type ToolHandler<I, O> = (args: I, context: ToolContext) => O | Promise<O>

export interface ToolCall<A = Json> {
  target: string
  name: string
  arguments: A
}

export interface CallOptions {
  /** Seconds; the kernel clamps to 300 and defaults to 30. */
  timeout?: number
  onProgress?(value: Json): void
  signal?: AbortSignal
  /** One ArrayBuffer (≤ 16 MiB) for a tool annotated `neutron:attachments`: transferred, so detached here once sent. */
  attachment?: ArrayBuffer
}

export interface AppSummary {
  id: string
  version: string
  title: string
  trust: 'untrusted'
  entries: { tile: boolean; tray: boolean; background: boolean }
}

export interface AppDescription extends AppSummary {
  description: string
  tools: string[]
  permissions: string[]
}

export interface EndpointSummary {
  id: string
  app: string
  kind: 'background' | 'tile' | 'tray'
}


export interface StateChange {
  topic: string
  revision: number
}

/** The wire shapes the SDK hands to apps, defined once where the kernel defines them. */
import type { ToolDescriptor } from '../protocol/envelope.ts'
export type { ToolDescriptor }
export type { AuditEntry } from '../kernel/audit.ts'
