/**
 * The settlement pipeline (spec §4), one call at a time:
 * resolve → authority → decode input → execute with runner context → encode output →
 * model content → bounded size. Every failure becomes a typed outcome the
 * model can read; an abort is not an outcome and propagates to the runner.
 * The authority stage is the one place a tool that needs the session owner's
 * credentials is refused in a turn that does not act for the owner: it never runs.
 */
import { NeuronError } from '../core/errors.ts'
import { canonicalJson, utf8Length } from '../ledger/json.ts'
import type { Registration, ToolRegistry } from './registry.ts'
import type { ToolContext } from './tool.ts'

/** Model-visible output beyond this many bytes is cut; the full text is kept as an artifact. */
export const MODEL_OUTPUT_CAP = 16 * 1024

export type Settlement =
  | { ok: true; content: string; truncated: boolean; full: string | null }
  | { ok: false; error: { code: string; message: string } }

export interface ToolCall {
  id: string
  name: string
  input: unknown
}

/**
 * @example
 * const outcome = await settle(call, shown.get(call.name), tools, context)
 */
export async function settle(
  call: ToolCall,
  shown: Registration | undefined,
  registry: ToolRegistry,
  context: ToolContext,
): Promise<Settlement> {
  if (!shown) return failure('TOOL_NOT_FOUND', `no tool named ${call.name}`)
  if (!shown.active || registry.resolve(call.name) !== shown) {
    return failure('TOOL_STALE', `the registration of ${call.name} the model saw has closed`)
  }
  if (shown.tool.require === 'owner' && !context.authority.owner) {
    return failure('TOOL_OWNER_ONLY', `${call.name} acts with the session owner's credentials, and this turn runs on a prompt that did not come from the owner`)
  }
  const input = shown.tool.input.safeParse(call.input)
  if (!input.success) {
    return failure('TOOL_INPUT_INVALID', input.error.issues.map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; '))
  }
  let raw: unknown
  try {
    raw = await shown.tool.execute(input.data, context)
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason
    if (error instanceof NeuronError) return failure(error.code, error.message)
    return failure('TOOL_FAILED', error instanceof Error ? error.message : String(error))
  }
  if (context.signal.aborted) throw context.signal.reason
  const output = shown.tool.output.safeParse(raw)
  if (!output.success) return failure('TOOL_OUTPUT_INVALID', `${call.name} returned output that does not match its schema`)
  try {
    const content = shown.tool.toModelOutput ? shown.tool.toModelOutput(output.data) : canonicalJson(output.data)
    if (typeof content !== 'string') return failure('TOOL_OUTPUT_INVALID', `${call.name} rendered model output that is not text`)
    return bound(content)
  } catch (error) {
    // Encoding is the tool's responsibility too: a failure here is the call's outcome, not the runner's.
    const reason = error instanceof NeuronError ? `${error.code}: ${error.message}` : String(error)
    return failure('TOOL_OUTPUT_INVALID', `${call.name} output could not be encoded for the model (${reason})`)
  }
}

function bound(content: string): Settlement {
  if (utf8Length(content) <= MODEL_OUTPUT_CAP) return { ok: true, content, truncated: false, full: null }
  let cut = content.slice(0, MODEL_OUTPUT_CAP)
  while (utf8Length(cut) > MODEL_OUTPUT_CAP) cut = cut.slice(0, Math.floor(cut.length * 0.9))
  return { ok: true, content: `${cut}\n… [output truncated; full output kept as an artifact]`, truncated: true, full: content }
}

function failure(code: string, message: string): Settlement {
  return { ok: false, error: { code, message } }
}
