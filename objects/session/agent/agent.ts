/**
 * An agent session: a SessionObject named `orchestration.{id}.agent.{token}`,
 * created only by its orchestration (through the bridge, never by a route). It
 * gets two tools, `declare` and `report`, which carry the agent's declaration
 * and report to the orchestration over the bridge stage, and it tells the
 * orchestration each step's token burn and any halt. It has no tool that
 * creates a session or an orchestration: spawn authority stays central.
 *
 * Everything it sends names the running turn: its prompts' ids and the principals who sent them
 * (`by`), read from their `admitted` events. The orchestration acts only on inputs whose turn it
 * or its owner prompted (orchestration/cause.ts); the session's access takes prompts on an agent
 * from its owner only (access.ts). The turn is kept in one storage row, rewritten in the same step
 * as each `prompted` event, so a wake mid-turn still names it.
 */
import { AgentName } from '../../agents/profile.ts'
import { z } from 'zod'
import { current } from '../../ledger/headers.ts'
import type { Json } from '../../ledger/json.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import { bridge, type BridgeDraft } from '../../agent-link/bridge.ts'
import { INPUT, orchestrationPrincipal } from '../../agent-link/protocol.ts'
import type { Env } from '../../core/env.ts'
import { NeuronError } from '../../core/errors.ts'
import { settled } from '../../core/rpc.ts'
import { Tool } from '../../tools/tool.ts'
import { Identifier } from '../../core/validate.ts'
import { EVENT, type EventPayloads, type EventType, isEvent } from '../events/events.ts'
import type { Receipts } from '../intake/receipts.ts'

export interface AgentAddress {
  orchestration: string
  token: string
}

const NAME = /^orchestration\.([A-Za-z0-9_:-]+)\.agent\.([A-Za-z0-9_:-]+)$/

/**
 * The orchestration and token of an agent session's name, or null for an ordinary session.
 *
 * @example
 * agentAddressOf('orchestration.o1.agent.t7') // { orchestration: 'o1', token: 't7' }
 */
export function agentAddressOf(name: string): AgentAddress | null {
  const match = NAME.exec(name)
  return match ? { orchestration: match[1]!, token: match[2]! } : null
}

/** Session names only orchestrations give (their agents'); no client may create or fork into one. */
const RESERVED = /^orchestration\./

/**
 * Refuses a session id a client asked for inside the agents' namespace (`orchestration.…`):
 * `SESSION_ID_RESERVED` (403), before anything is registered or written.
 *
 * @example
 * refuseReservedId('orchestration.o1.agent.t7') // throws SESSION_ID_RESERVED
 * refuseReservedId('notes') // 'notes'
 */
export function refuseReservedId(id: string): string {
  if (RESERVED.test(id)) {
    throw new NeuronError('SESSION_ID_RESERVED', `session ids starting orchestration. are reserved for orchestrations' agents`, { status: 403, details: { id } })
  }
  return id
}

/** What the orchestration sends an agent session over the bridge. */
export const AgentMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('orchestration.agent.assign'),
    payload: z.object({
      orchestration: z.string(),
      package: z.string(),
      owner: z.string(),
      share: z.array(z.string()),
      model: z.string(),
      messageId: Identifier,
      text: z.string().min(1),
      /** The agent profile the package names; absent: `default`. */
      agent: AgentName.optional(),
    }),
  }),
  z.object({ type: z.literal('orchestration.agent.prompt'), payload: z.object({ messageId: Identifier, text: z.string().min(1) }) }),
  z.object({ type: z.literal('orchestration.agent.cancel'), payload: z.object({ reason: z.string() }) }),
])
export type AgentMessage = z.infer<typeof AgentMessageSchema>

/** What the orchestration answered, as the tool's output. */
const Answer = z.json()

/** The running turn as the agent names it: its prompts' ids (at most 16) and who sent them. */
export interface AgentTurn {
  prompts: string[]
  by: string[]
}

/** Where an agent keeps its running turn, and how it learns who sent a prompt. */
export interface AgentTurns {
  /** The principal whose prompt `messageId` is, as its `admitted` event recorded it; null if unknown. */
  principalOf(messageId: string): string | null
  load(): AgentTurn | null
  save(turn: AgentTurn): void
}

const TURN_KEY = 'agent:turn'

/**
 * An agent session's turn store: one KV row, and the prompt's `admitted` event found by the
 * sequence its receipt holds.
 *
 * @example
 * const turns = agentTurns(ctx.storage.kv, receipts, ledger, `session.${name}`)
 */
export function agentTurns(kv: SyncKvStorage, receipts: Receipts, ledger: Ledger, topic: string): AgentTurns {
  return {
    principalOf(messageId) {
      const seq = receipts.get(messageId)?.seq
      const admitted = seq === undefined ? undefined : ledger.byTopic(topic, { after: seq - 1, limit: 1 }).items[0]
      if (!admitted || admitted.seq !== seq) return null
      const principal = current(admitted.headers, 'principal')
      return typeof principal === 'string' ? principal : null
    },
    load: () => kv.get<AgentTurn>(TURN_KEY) ?? null,
    save: (turn) => kv.put(TURN_KEY, turn),
  }
}

/**
 * The agent's link to its orchestration: its two tools and what it reports at step boundaries.
 * The tools speak for the orchestration's owner, so they run only in a turn that acts for the
 * owner (prompted by the orchestration or by the owner; never a share holder's).
 *
 * @example
 * const link = new AgentLink(address, (draft) => bridge.deliver(draft, send), agentTurns(kv, receipts, ledger, topic))
 * tools.register('declare', link.declare)
 */
export class AgentLink {
  readonly declare: Tool
  readonly report: Tool
  /** Only the planner (a token starting `plan-`) is given the `plan` tool. */
  readonly plan: Tool | null
  /**
   * The running turn, named on everything the agent sends: its prompt ids, so an inline agent
   * (several packages, one after another) books each input and each step's burn to the package
   * whose prompt it answers, and who sent them, so the orchestration knows whose input it is.
   * Read from its storage row on first use after a wake.
   */
  private turn: AgentTurn | null = null
  /** The work-tool calls in flight, by step: a report waits for its step's (`settlesBeforeReport`). */
  private readonly working = new Map<string, Set<Promise<unknown>>>()

  constructor(
    readonly address: AgentAddress,
    private readonly send: (draft: BridgeDraft) => Promise<Json>,
    private readonly turns: AgentTurns,
    /** Refuses (`UNKNOWN_AGENT`) a plan naming an agent profile its owner does not see. */
    private readonly knownAgents: (names: string[]) => Promise<void> = async () => {},
  ) {
    this.declare = Tool.make({
      description: 'Declare the resources this work package will read and write (keys such as file:src/a.ts or doc:roadmap). Call it first, once.',
      input: z.object({ reads: z.array(z.string().min(1).max(512)).max(256).default([]), writes: z.array(z.string().min(1).max(512)).max(256).default([]) }),
      output: Answer,
      require: 'owner',
      execute: (input, context) => this.send(this.draft(INPUT.declare, { ...input, toolCallId: context.toolCallId })),
    })
    this.report = Tool.make({
      description: 'End the work package: its result and the artifacts it produced.',
      input: z.object({ result: z.json(), artifacts: z.array(z.string().max(512)).max(64).default([]) }),
      output: Answer,
      require: 'owner',
      execute: async (input, context) => {
        // The report ends the package: what the step's work tools do lands before it, never after.
        await Promise.allSettled(this.working.get(context.assistantMessageId) ?? [])
        return this.send(this.draft(INPUT.report, { result: input.result as Json, artifacts: input.artifacts, toolCallId: context.toolCallId }))
      },
    })
    this.plan = address.token.startsWith('plan-')
      ? Tool.make({
          description: 'Give the plan: work packages ({ id, needs, instructions }) whose needs form a DAG.',
          input: z.object({ packages: z.array(z.json()).min(1).max(200) }),
          output: Answer,
          require: 'owner',
          // The orchestration checks the plan and answers why it is refused, so the model can fix it;
          // the agent profiles it names are checked here, where the owner's profiles are known.
          execute: async (input, context) => {
            await this.knownAgents(input.packages.flatMap((p) => (p && typeof p === 'object' && !Array.isArray(p) && typeof p.agent === 'string' ? [p.agent] : [])))
            return this.send(this.draft(INPUT.plan, { packages: input.packages as Json, toolCallId: context.toolCallId }))
          },
        })
      : null
  }

  /**
   * `tool`, whose calls a `report` of the same step waits for: a model that writes a file and
   * reports in one step (parallel calls) has its write land before its report, as it meant. A
   * call's execution is entered when the call streams in, before any later call of the step, so
   * the report sees every earlier call of its step here.
   *
   * @example
   * tools.register('write', agent.settlesBeforeReport(files.write))
   */
  settlesBeforeReport<T extends Tool>(tool: T): T {
    const working = this.working
    return Tool.make({
      ...tool,
      execute(input: unknown, context) {
        const step = context.assistantMessageId
        const running = Promise.resolve().then(() => tool.execute(input, context))
        const calls = working.get(step) ?? new Set()
        working.set(step, calls.add(running))
        const done = () => {
          calls.delete(running)
          if (calls.size === 0) working.delete(step)
        }
        running.then(done, done)
        return running
      },
    }) as T
  }

  /** The tools this agent is shown. */
  tools(): [string, Tool][] {
    return this.plan ? [['plan', this.plan]] : [['declare', this.declare], ['report', this.report]]
  }

  /** Step boundaries: each step's exact burn, and a halt after a failure, go to the orchestration. */
  observe<T extends EventType>(event: { type: T; payload: EventPayloads[T] }): Promise<Json> | null {
    if (isEvent(event, EVENT.prompted)) {
      const prompts = event.payload.messageIds.slice(0, 16)
      // A prompt admitted with no principal came through the bridge before prompts carried one.
      const self = orchestrationPrincipal(this.address.orchestration)
      this.turn = { prompts, by: [...new Set(prompts.map((id) => this.turns.principalOf(id) ?? self))] }
      this.turns.save(this.turn)
    }
    if (isEvent(event, EVENT.stepEnded)) {
      const step = event.payload
      const tokens = step.usage ? step.usage.inputTokens + step.usage.outputTokens : 0
      return this.send(this.draft(INPUT.burn, { step: step.step, tokens, cost: step.cost ?? 0 }))
    }
    if (isEvent(event, EVENT.halted) && event.payload.reason === 'step-failed') {
      return this.send(this.draft(INPUT.failed, { reason: 'the agent halted after a failed step' }))
    }
    return null
  }

  /** The running turn (its prompt ids and their principals), which every call to the orchestration names. */
  currentTurn(): AgentTurn {
    this.turn ??= this.turns.load() ?? { prompts: [], by: [] }
    return this.turn
  }

  private draft(type: string, payload: Record<string, Json>): BridgeDraft {
    const topic = `orchestration.${this.address.orchestration}.agent.${this.address.token}`
    const turn = this.currentTurn()
    return { topic, type, author: `agent:${this.address.token}`, time: Date.now(), payload: { ...payload, prompts: turn.prompts, by: turn.by } }
  }
}

/**
 * The agent link of a session whose name is an agent address, or null for any other session. Its
 * tools reach the orchestration over the bridge (retried; what cannot be delivered goes to
 * `deadLetter`, and the tool call fails with the bridge's code).
 *
 * @example
 * const agent = agentLinkOf(sessionName, env.ORCHESTRATIONS, (draft, error) => ledger.append(…), turns)
 */
export function agentLinkOf(
  name: string,
  orchestrations: Env['ORCHESTRATIONS'],
  deadLetter: (draft: BridgeDraft, error: unknown) => void,
  turns: AgentTurns,
  knownAgents?: (names: string[]) => Promise<void>,
): AgentLink | null {
  const address = agentAddressOf(name)
  if (!address) return null
  const orchestration = settled(orchestrations.getByName(address.orchestration))
  const toOrchestration = bridge({ deadLetter })
  return new AgentLink(
    address,
    async (draft) => {
      const sent = await toOrchestration.deliver(draft, (d) => orchestration.receive(d))
      if (!sent.ok) throw new NeuronError(sent.error.code, sent.error.message, { status: 502, details: { tries: sent.error.tries } })
      return sent.answer.answer
    },
    turns,
    knownAgents,
  )
}
