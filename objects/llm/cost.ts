/**
 * Usage → money, from the catalog's prices (USD per 1M tokens). Cached input is
 * billed at the cache-read price and cache writes at the cache-write price when
 * the row has them, at the input price otherwise; reasoning tokens are part of
 * output tokens and billed as output.
 */
import type { ModelRow } from './catalog.ts'
import type { Usage } from './types.ts'

/** Cost of one turn in US dollars, by line item. */
export interface Cost {
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
  total: number
}

/**
 * @example
 * costOf(model, { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 }).total
 * // 3 for a model whose input price is $3 / 1M
 */
export function costOf(model: Pick<ModelRow, 'cost'>, usage: Usage): Cost {
  const price = model.cost
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens)
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.inputTokens - cached)
  const fresh = usage.inputTokens - cached - written
  const input = perMillion(fresh, price.input)
  const cacheRead = perMillion(cached, price.cacheRead ?? price.input)
  const cacheWrite = perMillion(written, price.cacheWrite ?? price.input)
  const output = perMillion(usage.outputTokens, price.output)
  return { input, cacheRead, cacheWrite, output, total: input + cacheRead + cacheWrite + output }
}

function perMillion(tokens: number, usdPerMillion: number): number {
  return (tokens * usdPerMillion) / 1_000_000
}
