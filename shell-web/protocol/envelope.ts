/**
 * The wire. Every operational message travels on the private MessagePort the
 * kernel hands a frame during the handshake; window messages only carry the
 * handshake itself (probe → ready → connect).
 *
 * @example
 * // app → kernel
 * { type: 'exec', id: 12, payload: { action: 'tools.call', payload: { target: 'app:notes:background', name: 'notes_search', arguments: { query: 'roadmap' } } } }
 * // kernel → app: the same id and exactly one of ok / error
 * { type: 'result', id: 12, ok: { matches: [] } }
 * { type: 'result', id: 12, error: { code: 'GRANT_REQUIRED', message: '…' } }
 */
import type { BusErrorShape } from './codes.ts'

export interface Exec<P = unknown> {
  type: 'exec'
  id: number
  payload: { action: string; payload: P }
  /** tools.call / tool.invoke only, for a tool annotated `neutron:attachments`: transferred, ≤ 16 MiB. */
  attachment?: ArrayBuffer
  /**
   * Private transport metadata of Agent Mode, an opaque invocation capability: kernel → endpoint
   * beside a `tool.invoke` made for the agent; endpoint → kernel beside a `tools.call`/`tools.list`
   * made from that invocation's handler (its `context.kernel`). Never part of `payload`.
   */
  invocation?: string
}
export type Result = { type: 'result'; id: number; ok: unknown; attachment?: ArrayBuffer } | { type: 'result'; id: number; error: BusErrorShape }
export interface Progress {
  type: 'progress'
  id: number
  value: unknown
}
/** Caller → kernel: abandon my request `id`. Kernel → endpoint: stop invocation `id`. */
export interface Cancel {
  type: 'cancel'
  id: number
  reason?: string
}
/** Kernel → endpoint notifications (no reply). */
export interface Event<P = unknown> {
  type: 'event'
  payload: { action: string; payload: P }
}
/** Endpoint → kernel: this document is going away (pagehide). */
export interface Bye {
  type: 'bye'
}
export type PortMessage = Exec | Result | Progress | Cancel | Event | Bye

/** Window handshake messages (the only window traffic). */
export type Handshake =
  | { neutron: 'probe'; nonce: string }
  | { neutron: 'ready'; nonce: string }
  | { neutron: 'connect'; nonce: string; endpoint: string; app: string; kind: string }

/** The payload of a `tools.call` exec: the one wire shape, built by the SDK ({@link callPayload}) and read by the kernel ({@link parseCall}). */
export interface CallPayload {
  target: string
  name: string
  arguments: unknown
  /** Caller's bound on the whole call; the kernel clamps it. */
  timeoutMs?: number
  /** Whether the caller has an onProgress consumer. */
  progress?: boolean
  /** A token from attachments.delegate: this nested call keeps the provenance of the call being answered. */
  delegation?: string
}

/** What an endpoint tells the kernel (and discovery) about one tool. */
export interface ToolDescriptor {
  name: string
  title: string
  description: string
  inputSchema: unknown
  outputSchema: unknown
  /** `{ 'neutron:attachments': true }`: the tool takes and may return one attachment. */
  annotations?: { 'neutron:attachments'?: boolean }
}

/**
 * The kernel-derived caller of an invocation, never a claim. `origin`: the call continues one of
 * `origin`'s calls under a delegation token; `nested`: the caller was answering another call and
 * presented no token, so the call is attributed to the caller alone.
 */
export interface InvokeCaller {
  endpoint: string
  app: string
  origin?: { endpoint: string; app: string }
  nested?: true
}

/** What the kernel tells the target about a call. */
export interface InvokePayload {
  name: string
  arguments: unknown
  caller: InvokeCaller
  progress: boolean
  timeoutMs: number
}

export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/

const CALL_REQUIRED = ['target', 'name', 'arguments'] as const satisfies readonly (keyof CallPayload)[]
const CALL_OPTIONAL = ['timeoutMs', 'progress', 'delegation'] as const satisfies readonly (keyof CallPayload)[]

/**
 * A `tools.call` payload exactly as the wire defines it, or null (the kernel answers BAD_REQUEST).
 * `timeoutMs` is clamped and `delegation` resolved by the kernel afterwards.
 *
 * @example
 * parseCall({ target: 'kernel', name: 'apps.list', arguments: {} }) // the payload
 * parseCall({ target: 'kernel', name: 'apps.list', arguments: {}, caller: 'me' }) // null
 */
export function parseCall(p: unknown): CallPayload | null {
  if (!isRecord(p) || !hasExactKeys(p, CALL_REQUIRED, CALL_OPTIONAL)) return null
  if (typeof p.target !== 'string' || typeof p.name !== 'string' || !TOOL_NAME.test(p.name)) return null
  if (p.progress !== undefined && typeof p.progress !== 'boolean') return null
  return p as unknown as CallPayload
}

/**
 * The payload the SDK sends for a call: only the keys that are set, so it is what parseCall accepts.
 *
 * @example
 * callPayload({ target: 'app:notes:background', name: 'notes_search', arguments: { query: 'x' }, timeoutMs: undefined })
 * // { target: 'app:notes:background', name: 'notes_search', arguments: { query: 'x' } }
 */
export function callPayload(call: CallPayload): CallPayload {
  const payload: CallPayload = { target: call.target, name: call.name, arguments: call.arguments }
  for (const key of CALL_OPTIONAL) if (call[key] !== undefined) Object.assign(payload, { [key]: call[key] })
  return payload
}

/** A plain object (not null, not an array)? */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True when `value` has exactly the keys in `required` plus any of `optional`. */
export function hasExactKeys(value: Record<string, unknown>, required: readonly string[], optional: readonly string[] = []): boolean {
  for (const key of required) if (!(key in value)) return false
  for (const key of Object.keys(value)) if (!required.includes(key) && !optional.includes(key)) return false
  return true
}

/** Request ids are non-negative safe integers. */
export function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}
