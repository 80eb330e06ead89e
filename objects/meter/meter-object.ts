/**
 * MeterObject: one per principal. Every authenticated request and every model
 * turn paid for by the principal is an envelope in its ledger; the totals are a
 * fold (kept incrementally), which later feeds spending limits.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import { answerFailures } from '../core/rpc.ts'
import type { Stored } from '../ledger/envelope.ts'
import { Chain } from '../ledger/chain.ts'
import { type Folded, Ledger } from '../ledger/ledger.ts'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_TABLES } from '../ledger/tables.ts'
import type { Usage } from '../llm/types.ts'

export interface MeterTotals {
  requests: number
  byRoute: Record<string, number>
  turns: number
  tokens: { input: number; output: number; cached: number; reasoning: number }
  cost: number
}

export interface RequestCount {
  method: string
  route: string
  status: number
  count: number
}

const EMPTY: MeterTotals = { requests: 0, byRoute: {}, turns: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 }, cost: 0 }
const TOPIC = 'meter.usage'

function reduce(totals: MeterTotals, e: Stored): MeterTotals {
  if (e.type === 'meter.requests') {
    const byRoute = { ...totals.byRoute }
    let requests = totals.requests
    for (const { method, route, count } of e.payload as unknown as RequestCount[]) {
      byRoute[`${method} ${route}`] = (byRoute[`${method} ${route}`] ?? 0) + count
      requests += count
    }
    return { ...totals, requests, byRoute }
  }
  if (e.type === 'meter.turn') {
    const { usage, cost } = e.payload as unknown as { usage: Usage; cost: number | null }
    const t = totals.tokens
    return {
      ...totals,
      turns: totals.turns + 1,
      tokens: { input: t.input + usage.inputTokens, output: t.output + usage.outputTokens, cached: t.cached + usage.cachedInputTokens, reasoning: t.reasoning + usage.reasoningTokens },
      cost: totals.cost + (cost ?? 0),
    }
  }
  return totals
}

/** The meter's tables: the embedded ledger's. */
export const TABLES = tables([LEDGER_TABLES])

export class MeterObject extends DurableObject<Env> {
  protected readonly ledger: Ledger
  private readonly usage: Chain
  private folded: Folded<MeterTotals> | undefined

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.usage = new Chain(this.ledger, TOPIC)
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  /** One batch of request counts from the gate's meter stage. */
  requests(counts: RequestCount[]): void {
    this.usage.append('meter.requests', 'gate:meter', counts)
  }

  /** One model turn's usage, attributed to the session's owner. */
  turn(turn: { session: string; step: string; usage: Usage; cost: number | null }): void {
    this.usage.append('meter.turn', `session:${turn.session}`, turn)
  }

  /** The principal's totals, folded incrementally from its usage log. */
  totals(): MeterTotals {
    this.folded = this.ledger.fold(TOPIC, reduce, EMPTY, this.folded)
    return this.folded.state
  }
}

// Expected failures are answers, not uncaught errors (objects/core/rpc.ts); callers go through `settled`.
answerFailures(MeterObject, ['requests', 'turn', 'totals'])
