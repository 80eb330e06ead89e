/**
 * Writes a session's turns into its owner's graph as a conversation chain, off
 * the hot path. The session's log is the truth; the writer keeps a cursor (the
 * last session sequence written) and, after each drain and on every wake, maps
 * the events past it to graph writes (`objects/graph/turns.ts`) and sends them
 * in one call per page. The cursor moves only after the graph acknowledged the
 * page, so every event is written at least once; the graph recognises a re-sent
 * write by its content, so at least once is exactly once in the graph.
 */
import type { Env } from '../../core/env.ts'
import type { Caller } from '../../access/authorize.ts'
import { graphToWrite } from '../../graph/graphs.ts'
import { type ChainOp, type ChainState, chainStep, emptyChain } from '../../graph/turns.ts'
import type { Ledger } from '../../ledger/ledger.ts'

const KEY = 'graph.chain'
const PAGE = 200

export interface ChainWriterDeps {
  ledger: Ledger
  storage: DurableObjectStorage
  env: Env
  topic: string
  session: () => string
  /** The session owner as the graph sees it; `null` before the session exists. */
  owner: () => Caller | null
}

/**
 * @example
 * const chain = new ChainWriter({ ledger, storage: ctx.storage, env, topic, session: () => id, owner })
 * ctx.waitUntil(chain.sync())
 */
export class ChainWriter {
  private running: Promise<void> | null = null
  private again = false

  constructor(private readonly deps: ChainWriterDeps) {}

  /** Writes every event not yet in the graph. One run at a time; a call during a run makes it run once more. */
  sync(): Promise<void> {
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = (async () => {
      try {
        do {
          this.again = false
          await this.drain()
        } while (this.again)
      } finally {
        this.running = null
      }
    })()
    return this.running
  }

  /** Where the chain stands (written so far). */
  async state(): Promise<ChainState> {
    return (await this.deps.storage.get<ChainState>(KEY)) ?? emptyChain()
  }

  /**
   * Refuses, before the session records the event that implies them, graph writes the graph
   * would refuse: the chain is written after the event, off the request, where a refusal could
   * only be logged. Nothing is written by the check.
   */
  async check(ops: ChainOp[], owner: Caller = this.deps.owner()!): Promise<void> {
    await (await this.graph(owner)).checkChain(owner, ops)
  }

  private async drain(): Promise<void> {
    const owner = this.deps.owner()
    if (!owner) return
    let state = await this.state()
    for (;;) {
      const page = this.deps.ledger.byTopic(this.deps.topic, { after: state.cursor, limit: PAGE })
      if (page.items.length === 0) return
      const ops: ChainOp[] = []
      for (const event of page.items) {
        const step = chainStep(state, event, this.deps.session(), owner.id)
        state = step.state
        ops.push(...step.ops)
      }
      if (ops.length > 0) await (await this.graph(owner)).applyChain(owner, ops)
      await this.deps.storage.put(KEY, state)
      if (page.next === null) return
    }
  }

  private async graph(owner: Caller) {
    return graphToWrite(this.deps.env, owner)
  }
}
