/**
 * What a session halted by `CONTEXT_OVERFLOW` tells the person: what is too large, measured
 * from the request that was refused, and the one change that fixes it. A fixed sentence ("send a
 * shorter prompt") misleads whenever the prompt is not the problem: after a 17-character prompt
 * it is never the answer. Pure.
 */

/** The refused request in parts, each in estimated tokens, and how its compaction went. */
export interface OverflowFacts {
  /** `provider/model`. */
  model: string
  /** The model's context window in tokens; null when the catalog does not know it. */
  window: number | null
  /** The latest user message. */
  prompt: number
  /** Every other message the model is shown (the summary and the kept turns, after compacting). */
  history: number
  system: number
  tools: number
  /** The compaction attempt's failure, if it failed. */
  compactionError?: { code: string; message: string }
}

/**
 * @example
 * overflowAdvice({ model: 'local/echo-small', window: 4096, prompt: 5, history: 90, system: 0, tools: 9000 })
 * // '… the tool specs offered are about 9000 tokens …: offer fewer tools (config `tools`, MCP servers) …'
 */
export function overflowAdvice(facts: OverflowFacts): string {
  const total = facts.prompt + facts.history + facts.system + facts.tools
  const window = facts.window === null ? "the model's context window" : `the ${facts.window}-token context window of ${facts.model}`
  const what = facts.compactionError
    ? `compacting the conversation failed (${facts.compactionError.code}: ${facts.compactionError.message}), and the request of about ${total} tokens does not fit ${window}`
    : `even after compacting, the request is about ${total} tokens and does not fit ${window}`
  const parts: [number, string, string][] = [
    [facts.prompt, `the latest prompt alone is about ${facts.prompt} tokens`, 'send a shorter prompt'],
    [facts.tools, `the tool specs offered are about ${facts.tools} tokens`, 'offer fewer tools (config `tools`, MCP servers)'],
    [facts.system, `the system text and instructions are about ${facts.system} tokens`, "shorten the session's system text or the config's `instructions`"],
    [facts.history, `the kept conversation is about ${facts.history} tokens`, 'truncate the session to before its largest turn, or fork it from an earlier one'],
  ]
  if (facts.window !== null && total <= facts.window) {
    // Refused although it fits by our count: the provider's window is smaller than the catalog says.
    return `the provider refused a request of about ${total} tokens as too long, although the catalog gives ${facts.model} a ${facts.window}-token window: correct the model's window in the catalog, or switch the session to a model with a larger window`
  }
  const [, largest, fix] = parts.reduce((a, b) => (b[0] > a[0] ? b : a))
  return `${what}; ${largest}: ${fix}, or switch the session to a model with a larger window`
}
