/**
 * MeterObject: one per principal. Every authenticated request and every model
 * turn paid for by the principal is an envelope in its ledger; the totals are a
 * fold (kept incrementally), which later feeds spending limits.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import { answerFailures } from '../core/rpc.ts'
import type { Stored } from '../ledger/envelope.ts'
import { Journal } from '../core/journal.ts'
import type { Ledger } from '../ledger/ledger.ts'
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
  /** The usage log, a causal chain, and the totals folded over it: restored on the first read of them. */
  private readonly usage: Journal<MeterTotals>

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.usage = new Journal({ storage: ctx.storage, topic: TOPIC, author: 'object:meter', reduce, initial: () => EMPTY })
    this.ledger = this.usage.ledger
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  /** One batch of request counts from the gate's meter stage. */
  requests(counts: RequestCount[]): void {
    this.usage.record('meter.requests', counts, [], 'gate:meter')
  }

  /** One model turn's usage, attributed to the session's owner. */
  turn(turn: { session: string; step: string; usage: Usage; cost: number | null }): void {
    this.usage.record('meter.turn', turn, [], `session:${turn.session}`)
  }

  /** The principal's totals, folded from its usage log once per wake and kept as usage is recorded. */
  totals(): MeterTotals {
    return this.usage.state
  }
}

// Expected failures are answers, not uncaught errors (objects/core/rpc.ts); callers go through `settled`.
answerFailures(MeterObject, ['requests', 'turn', 'totals'])
