/**
 * Public types of the app SDK.
 *
 * @example
 * const options: ToolOptions = { title: 'Search', description: 'Search notes', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }
 */
import type { InvokeCaller, ToolDescriptor } from '../protocol/envelope.ts'

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
  /**
   * The kernel-derived caller; never something the caller claimed. `origin` is set when the caller
   * passed on a call of `origin`'s with a delegation token; `nested` when it was answering another
   * call and presented none (the call is then the caller's own).
   */
  caller: InvokeCaller
  /**
   * A one-use token (10 s, this endpoint session only) that lets one nested call made while
   * answering this invocation keep its caller's provenance: pass it as `CallOptions.delegation`.
   */
  delegate(): Promise<string>
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
  /** A token from `context.delegate()`: this nested call keeps the provenance of the call being answered. */
  delegation?: string
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
export type { InvokeCaller, ToolDescriptor } from '../protocol/envelope.ts'
export type { AuditEntry } from '../kernel/bus/audit.ts'
