/**
 * The context budget: how many input tokens a provider turn may send. The
 * window is the catalog's `limits.context`; from it we reserve headroom for
 * the turn's output (the model's output limit, at most a quarter of the
 * window) and a safety margin (5% of the window), because our count is an
 * estimate. The estimate starts from what the provider reported for the last
 * turn (`usage.inputTokens`) and adds what was appended since at a
 * characters-per-token ratio, which every reported usage corrects.
 *
 * Pure: the runner owns one `TokenEstimator` per drain and asks it before
 * every provider turn.
 */
import type { Usage } from '../../llm/types.ts'

/** Assumed characters of serialized request per token, until a provider reports usage; never assumed higher. */
export const DEFAULT_CHARS_PER_TOKEN = 4
/** Share of the window kept free besides the output reservation: the estimate's safety margin. */
export const MARGIN_SHARE = 0.05

export interface Budget {
  /** The model's context window, in tokens. */
  window: number
  /** Tokens reserved for the turn's output. */
  output: number
  /** Tokens kept free because counts are estimates. */
  margin: number
  /** Input tokens a turn may send: window − output − margin. */
  input: number
}

/**
 * @example
 * budgetOf({ context: 4096, output: 1024 }) // { window: 4096, output: 1024, margin: 205, input: 2867 }
 */
export function budgetOf(limits: { context: number; output: number }): Budget {
  const output = Math.min(limits.output, Math.ceil(limits.context / 4))
  const margin = Math.ceil(limits.context * MARGIN_SHARE)
  return { window: limits.context, output, margin, input: Math.max(0, limits.context - output - margin) }
}

/**
 * Estimates a request's input tokens from its serialized size in characters,
 * anchored on the last reported usage.
 *
 * @example
 * const tokens = new TokenEstimator()
 * tokens.estimate(8000)                                        // 2000 (4 chars per token)
 * tokens.observe(8000, { inputTokens: 2500, ... })             // the provider counted 2500
 * tokens.estimate(8400)                                        // 2500 + 400 / 3.2 = 2625
 * tokens.observe(8000, { inputTokens: 500, ... })              // 16 per token: held at 4
 * tokens.estimate(8400)                                        // 500 + 400 / 4 = 600
 */
export class TokenEstimator {
  private charsPerToken = DEFAULT_CHARS_PER_TOKEN
  private anchor: { chars: number; tokens: number } | null = null

  /** Tokens of a request `chars` long: the last reported count plus what was added since. */
  estimate(chars: number): number {
    if (!this.anchor) return Math.ceil(chars / this.charsPerToken)
    return Math.max(0, Math.ceil(this.anchor.tokens + (chars - this.anchor.chars) / this.charsPerToken))
  }

  /** Tokens of `chars` characters on their own, at the current ratio (one part of a request). */
  tokensOf(chars: number): number {
    return Math.ceil(chars / this.charsPerToken)
  }

  /** Characters that fit in `tokens`, at the current ratio. */
  charsFor(tokens: number): number {
    return Math.floor(tokens * this.charsPerToken)
  }

  /**
   * A new context epoch: the last reported count described a request that no longer exists, so
   * estimates start again from the size alone (the corrected ratio stays).
   */
  rebase(): void {
    this.anchor = null
  }

  /** A turn of `chars` was sent and the provider reported `usage`: re-anchor and correct the ratio. */
  observe(chars: number, usage: Usage | null): void {
    if (!usage || usage.inputTokens <= 0) return
    this.anchor = { chars, tokens: usage.inputTokens }
    // Bounded, so one odd report (a cache-heavy turn, a vendor quirk) cannot derail the estimate,
    // and never above the default: see the header.
    this.charsPerToken = Math.min(DEFAULT_CHARS_PER_TOKEN, Math.max(1, chars / usage.inputTokens))
  }
}
