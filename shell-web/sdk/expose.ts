/**
 * The endpoint side of tools: exposeTool registers a handler here and tells
 * the kernel (which validates every call against the same schemas). Incoming
 * invocations are validated again here, run with a context bound to that one
 * invocation, and answered exactly once — unless the kernel already cancelled
 * them, in which case nothing is sent.
 *
 * @example
 * exposeTool('notes_search', { title: 'Search Notes', description: '…', inputSchema, outputSchema },
 *   async ({ query }, context) => ({ matches: search(query) }))
 */
import { BusError } from './errors.ts'
import type { Transport } from './transport.ts'
import type { ScopedKernel, ToolContext, ToolHandler, ToolOptions } from './types.ts'
import { TOOL_NAME, type InvokePayload, type ToolDescriptor, isRecord } from '../protocol/envelope.ts'
import { checkJson } from '../protocol/json-compat.ts'
import { LIMITS } from '../protocol/limits.ts'
import { Rate } from '../protocol/rate.ts'
import { type SchemaVerdict, type ValidationBudget, checkSchema, compileSchema } from '../protocol/schema.ts'

/** In its own frame an app's validation needs no deadline: only the step count, the kernel's verdict on the same schema. */
const OWN_FRAME: ValidationBudget = { deadline: Infinity }

interface Exposed {
  descriptor: ToolDescriptor
  handler: ToolHandler<never, unknown>
  validateInput: (value: unknown, budget?: ValidationBudget) => SchemaVerdict
  validateOutput: (value: unknown, budget?: ValidationBudget) => SchemaVerdict
}

export class ToolHost {
  #tools = new Map<string, Exposed>()
  #running = new Map<number, AbortController>()
  /** Progress this endpoint may send, mirroring the kernel's rate for it. */
  #progress = new Rate(LIMITS.progressBurst, LIMITS.progressPerSecond)

  constructor(
    private readonly transport: Transport,
    /** Makes the scoped client of one call made for the agent, from its capability. */
    private readonly scoped: (invocation: string) => ScopedKernel,
  ) {
    transport.on('exec', (msg) => this.#onExec(msg))
    transport.on('cancel', (msg) => this.#running.get(msg.id as number)?.abort(new BusError('CANCELLED', String(msg.reason ?? 'cancelled'))))
  }

  expose<I, O>(name: string, options: ToolOptions, handler: ToolHandler<I, O>): Promise<void> {
    if (!TOOL_NAME.test(name)) throw new BusError('BAD_REQUEST', `tool names match ${TOOL_NAME}`)
    for (const schema of [options.inputSchema, options.outputSchema]) {
      const issue = checkSchema(schema)
      if (issue) throw new BusError('SCHEMA_REJECTED', issue)
    }
    const descriptor: ToolDescriptor = { name, title: options.title, description: options.description, inputSchema: options.inputSchema, outputSchema: options.outputSchema }
    if (options.attachments) descriptor.annotations = { 'neutron:attachments': true }
    this.#tools.set(name, { descriptor, handler: handler as ToolHandler<never, unknown>, validateInput: compileSchema(options.inputSchema), validateOutput: compileSchema(options.outputSchema) })
    const registered = this.transport.request('tools.expose', descriptor).then(() => undefined)
    registered.catch((error) => console.warn(`exposeTool(${name}) refused by the kernel:`, error))
    return registered
  }

  remove(name: string): Promise<void> {
    this.#tools.delete(name)
    return this.transport.request('tools.remove', { name }).then(() => undefined)
  }

  #onExec(msg: Record<string, unknown>) {
    const id = msg.id as number
    const envelope = isRecord(msg.payload) ? msg.payload : {}
    if (envelope.action === 'tools.describe') {
      return this.transport.post({ type: 'result', id, ok: { tools: [...this.#tools.values()].map((t) => t.descriptor) } })
    }
    const attachment = msg.attachment instanceof ArrayBuffer ? msg.attachment : undefined
    // The capability stays in this closure: the handler gets a client that uses it, never the value.
    const invocation = typeof msg.invocation === 'string' ? msg.invocation : undefined
    if (envelope.action === 'tool.invoke' && isRecord(envelope.payload)) return void this.#invoke(id, envelope.payload as unknown as InvokePayload, attachment, invocation)
    this.transport.post({ type: 'result', id, error: { code: 'BAD_REQUEST', message: 'unknown action' } })
  }

  async #invoke(id: number, call: InvokePayload, attachment: ArrayBuffer | undefined, invocation: string | undefined) {
    const tool = this.#tools.get(call.name)
    const controller = new AbortController()
    const reply = (outcome: { ok: unknown; attachment?: ArrayBuffer } | { error: BusError }) => {
      this.#running.delete(id)
      // Cancelled (timeout, caller gone): the kernel has already answered the caller.
      if (controller.signal.aborted) return
      if ('error' in outcome) return this.transport.post({ type: 'result', id, error: outcome.error.toJSON() })
      if (!outcome.attachment) return this.transport.post({ type: 'result', id, ok: outcome.ok })
      this.transport.post({ type: 'result', id, ok: outcome.ok, attachment: outcome.attachment }, [outcome.attachment])
    }
    if (!tool) return reply({ error: new BusError('UNKNOWN_TOOL', `no tool ${call.name} here`) })
    const inputIssue = tool.validateInput(call.arguments, OWN_FRAME)
    if (inputIssue) return reply({ error: new BusError(inputIssue.code, `input ${inputIssue.reason}`) })
    this.#running.set(id, controller)
    let done = false
    // Within the kernel's progress rate every event goes out at once; beyond it the latest value
    // waits for the next token (the kernel would drop the excess, and count it against a flood).
    let latest: { value: unknown } | undefined
    let flush: ReturnType<typeof setTimeout> | undefined
    const send = () => {
      flush = undefined
      if (done || controller.signal.aborted || !latest) return
      if (!this.#progress.take()) return void (flush = setTimeout(send, 1_000 / LIMITS.progressPerSecond))
      this.transport.post({ type: 'progress', id, value: latest.value })
      latest = undefined
    }
    const context: ToolContext = {
      caller: call.caller,
      signal: controller.signal,
      delegate: () =>
        this.transport
          .request('tools.call', { target: 'kernel', name: 'attachments.delegate', arguments: { invocation: id } })
          .then((ok) => (ok as { token: string }).token),
      ...(attachment ? { attachment } : {}),
      ...(invocation ? { kernel: this.scoped(invocation) } : {}),
      reportProgress: (value) => {
        if (done || controller.signal.aborted || !call.progress) return false
        if (!checkJson(value, LIMITS.maxProgressBytes, LIMITS.maxDepth, { deadline: Infinity }).ok) return false
        // At most one event per interval: the latest value wins and goes out when the interval ends.
        latest = { value }
        if (!flush) send()
        return true
      },
    }
    let result: unknown
    let answer: ArrayBuffer | undefined
    try {
      result = await tool.handler(call.arguments as never, context)
      if (result instanceof WithAttachment) {
        if (!tool.descriptor.annotations?.['neutron:attachments']) throw new BusError('ATTACHMENT_REJECTED', `${call.name} was exposed without attachments: true`)
        if (result.attachment.byteLength > LIMITS.maxAttachmentBytes) throw new BusError('ATTACHMENT_TOO_LARGE', `an attachment is at most ${LIMITS.maxAttachmentBytes} bytes`)
        answer = result.attachment
        result = result.result
      }
    } catch (error) {
      done = true
      const own = error instanceof BusError && ['SCHEMA_VIOLATION', 'ATTACHMENT_REJECTED', 'ATTACHMENT_TOO_LARGE'].includes(error.code)
      return reply({ error: own ? error : new BusError('TOOL_ERROR', error instanceof Error ? error.message : String(error)) })
    }
    done = true
    const json = checkJson(result, LIMITS.maxPayloadBytes, LIMITS.maxDepth, { deadline: Infinity })
    if (!json.ok) return reply({ error: new BusError(json.code, `result ${json.path}: ${json.reason}`) })
    const outputIssue = tool.validateOutput(result, OWN_FRAME)
    if (outputIssue) return reply({ error: new BusError(outputIssue.code, `output ${outputIssue.reason}`) })
    reply(answer ? { ok: result, attachment: answer } : { ok: result })
  }
}

/** A handler's result with one attachment for the answer (see {@link withAttachment}). */
export class WithAttachment<O> {
  constructor(
    readonly result: O,
    readonly attachment: ArrayBuffer,
  ) {}
}

/**
 * Answers a call with `result` plus one ArrayBuffer (≤ 16 MiB), transferred to the caller — so it
 * is detached in this frame once sent. Only for a tool exposed with `attachments: true`.
 *
 * @example
 * exposeTool('notes_export', { …, attachments: true }, () => withAttachment({ bytes: file.byteLength }, file))
 */
export function withAttachment<O>(result: O, attachment: ArrayBuffer): O {
  return new WithAttachment(result, attachment) as unknown as O
}
