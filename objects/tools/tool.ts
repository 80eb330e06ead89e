/**
 * A tool (spec §4): self-contained codecs and one executor. `Tool.make` is the
 * only way to build one; the registry and the settlement pipeline treat the
 * result as opaque.
 */
import type { z } from 'zod'

/** What the runner hands a tool when it executes a call. */
export interface ToolContext {
  sessionId: string
  /** The provider turn (assistant message) that asked for the call. */
  assistantMessageId: string
  toolCallId: string
  /** Aborts when the session is interrupted. Cooperative tools stop their work. */
  signal: AbortSignal
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
