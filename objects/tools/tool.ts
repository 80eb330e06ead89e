/**
 * A tool (spec §4): self-contained codecs and one executor. `Tool.make` is the
 * only way to build one; the registry and the settlement pipeline treat the
 * result as opaque.
 */
import type { z } from 'zod'
import type { Caller } from '../access/authorize.ts'
import type { PermissionGate } from '../permission/gate.ts'

/**
 * What a call may act on, decided once per turn from who prompted it and what the session grants
 * (objects/session/turn/authority.ts; the table is in docs/graph.md, "Who may reach what").
 */
export interface ToolAuthority {
  /** The turn acts for the session's owner: tools that `require: 'owner'` may run. */
  owner: boolean
  /** Who memory tools act as, on that caller's graph: the owner, or a shared session's own memory; null: no memory. */
  memory: Caller | null
}

/** What the runner hands a tool when it executes a call. */
export interface ToolContext {
  sessionId: string
  /** The turn's authority: every tool that reaches a principal's resources reads it, nothing else. */
  authority: ToolAuthority
  /** The provider turn (assistant message) that asked for the call. */
  assistantMessageId: string
  toolCallId: string
  /** Aborts when the session is interrupted. Cooperative tools stop their work. */
  signal: AbortSignal
  /** Asks before a side effect (objects/permission/gate.ts): resolves when allowed, throws PERMISSION_DENIED / PERMISSION_TIMEOUT. */
  permission: PermissionGate
  /** Tells subscribers how far the call got (air: never stored, never shown to the model). */
  progress?(update: ToolProgress): void
}

/** How far a running call got, as a long-running tool reports it: a count (with `total`), or a host's own JSON object. */
export interface ToolProgress {
  progress: number | Record<string, unknown>
  total?: number
  message?: string
}

export interface ToolDefinition<I extends z.ZodType, O extends z.ZodType> {
  description: string
  input: I
  output: O
  /** The JSON Schema the model is shown, when the input is described by one rather than derived from `input`. */
  inputSchema?: Record<string, unknown>
  /**
   * `'owner'`: the tool acts with the session owner's credentials or devices (an MCP server's sealed
   * headers and OAuth grant, a host tool in the owner's browser, the owner's orchestration). The
   * settlement pipeline refuses it (`TOOL_OWNER_ONLY`) in a turn that does not act for the owner.
   */
  require?: 'owner'
  execute(input: z.output<I>, context: ToolContext): Promise<z.input<O>> | z.input<O>
  /** The text the model sees; defaults to the output's JSON. */
  toModelOutput?(output: z.output<O>): string
}

const TOOL = Symbol('neuron.tool')

/** An opaque, frozen tool. */
export interface Tool<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends ToolDefinition<I, O> {
  readonly [TOOL]: true
}

export const Tool = {
  /**
   * @example
   * const echo = Tool.make({
   *   description: 'Echo the text back',
   *   input: z.object({ text: z.string() }),
   *   output: z.object({ text: z.string() }),
   *   execute: ({ text }) => ({ text }),
   * })
   */
  make<I extends z.ZodType, O extends z.ZodType>(definition: ToolDefinition<I, O>): Tool<I, O> {
    return Object.freeze({ ...definition, [TOOL]: true as const })
  },
}
