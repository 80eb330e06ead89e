/**
 * Memory tools: `memory_remember`, `memory_recall`, `memory_forget`. They act on
 * the graph the turn's authority names (`context.authority.memory`, decided in
 * objects/session/turn/authority.ts): in a private session the owner's graph (or, with
 * `scope`, a shared claim's graph the owner's prompt carried the claim for), so
 * what one session remembers another session of the same principal recalls; in
 * a shared session the session's own memory, whoever prompted. They replace the
 * session-scoped `note_write` / `note_search`: notes written before stay in their
 * session's log, unmigrated.
 */
import { z } from 'zod'
import type { Caller } from '../../access/authorize.ts'
import type { Env } from '../../core/env.ts'
import { NeuronError } from '../../core/errors.ts'
import type { GraphObject } from '../../graph/graph-object.ts'
import { graphToRead, graphToWrite } from '../../graph/graphs.ts'
import { Scope } from '../../graph/inputs.ts'
import { Address } from '../../graph/vocabulary.ts'
import { Tool, type ToolContext } from '../tool.ts'

/** What the memory tools need from the session they run in. */
export interface MemoryHost {
  /** The bindings: the graphs and the directory that says which exist. */
  env: Env
  /** The session's conversation node, written into the graph if missing; memories regard it. */
  conversation(graph: DurableObjectStub<GraphObject>, caller: Caller): Promise<string>
}

const Recalled = z.object({ address: z.string(), text: z.string(), sources: z.array(z.string()) })

/**
 * @example
 * const { remember, recall, forget } = memoryTools({ env, conversation })
 * tools.register('memory_remember', remember)
 */
export function memoryTools(host: MemoryHost) {
  const writable = async (scope: string | undefined, context: ToolContext) => {
    const caller = memoryOf(context)
    return { caller, stub: await graphToWrite(host.env, caller, scope) }
  }
  const readable = async (scope: string | undefined, context: ToolContext) => {
    const caller = memoryOf(context)
    return { caller, stub: await graphToRead(host.env, caller, scope) }
  }

  const remember = Tool.make({
    description: 'Remember a fact for later sessions of this user (or, with scope "org:…", for everyone holding that claim). Pinned memories are offered to every session.',
    input: z.object({ text: z.string().min(1).max(4000), pinned: z.boolean().optional(), scope: Scope.optional() }),
    output: z.object({ address: z.string(), duplicate: z.boolean() }),
    execute: async ({ text, pinned, scope }, context) => {
      const { caller, stub } = await writable(scope, context)
      const regards = [await host.conversation(stub, caller)]
      const input = pinned === undefined ? { text, regards } : { text, regards, pinned }
      const { memory, duplicate } = await stub.remember(caller, input, { session: context.sessionId, step: context.assistantMessageId, toolCall: context.toolCallId })
      return { address: memory.address, duplicate }
    },
  })

  const recall = Tool.make({
    description: 'Recall remembered facts matching a query, best first, with the address of each and where it came from.',
    input: z.object({ query: z.string().min(1).max(1024), limit: z.number().int().min(1).max(50).optional(), scope: Scope.optional() }),
    output: z.object({ memories: z.array(Recalled) }),
    execute: async ({ query, limit, scope }, context) => {
      const { caller, stub } = await readable(scope, context)
      if (!stub) return { memories: [] }
      const { items } = await stub.recall(caller, limit === undefined ? { query } : { query, limit })
      return { memories: items.map(({ address, text, sources }) => ({ address, text, sources })) }
    },
  })

  const forget = Tool.make({
    description: 'Forget a remembered fact by its address, with a reason; give a replacement to correct it instead. History keeps it; recall no longer returns it.',
    input: z.object({ address: Address, reason: z.string().min(1).max(1024), replacement: z.string().min(1).max(4000).optional(), scope: Scope.optional() }),
    output: z.object({ forgotten: z.string(), replacement: z.string().nullable() }),
    execute: async ({ address, reason, replacement, scope }, context) => {
      const { caller, stub } = await readable(scope, context)
      if (!stub) throw new NeuronError('UNKNOWN_MEMORY', `nothing in memory holds ${address}`, { status: 404, details: { address } })
      // Forgetting changes what every later session recalls: it asserts policy first (asks by default).
      await context.permission.assert({
        tool: 'memory_forget',
        source: 'builtin',
        subjects: [],
        input: replacement === undefined ? { address, reason } : { address, reason, replacement },
        reason: replacement === undefined ? `forget ${address}: ${reason}` : `correct ${address}: ${reason}`,
      })
      const result = await stub.forget(caller, replacement === undefined ? { address, reason } : { address, reason, replacement })
      return { forgotten: result.forgotten.target, replacement: result.replacement?.address ?? null }
    },
  })

  return { remember, recall, forget }
}

/** Who the call's memory acts as, or `MEMORY_NOT_GRANTED` when the turn may use none. */
function memoryOf(context: ToolContext): Caller {
  const caller = context.authority.memory
  if (!caller) throw new NeuronError('MEMORY_NOT_GRANTED', "this turn may not use memory: its prompts did not come from the session's owner", { status: 403 })
  return caller
}
