/**
 * What the local model says, decided from the chat-completions request body
 * alone (it is a vendor like any other). Deterministic: the same body always
 * gets the same turn.
 *
 * - last message from the user: run its commands (see `commands.ts`), else echo its prose
 * - last messages are tool results: state them, and stop (never call tools again,
 *   so an agent loop always ends)
 */
import { CATALOG_SNAPSHOT } from '../catalog-snapshot.ts'
import { type Commands, parseCommands } from './commands.ts'

/** The parts of an OpenAI chat-completions request the local model reads. */
export interface ChatBody {
  model?: string
  stream?: boolean
  max_tokens?: number
  messages?: ChatMessage[]
}
export interface ChatMessage {
  role?: string
  content?: string | Array<{ type?: string; text?: string }> | null
  tool_call_id?: string
  tool_calls?: Array<{ id?: string; function?: { name?: string } }>
}

export interface Turn {
  reasoning: string[]
  text: string[]
  tools: { id: string; name: string; arguments: string }[]
  finish: 'stop' | 'length' | 'content_filter' | 'tool_calls'
  slowMs: number
  truncate: boolean
  fail: Commands['fail']
  usage: { prompt: number; completion: number; reasoning: number }
}

const WORDS = ['neuron', 'edge', 'ledger', 'fold', 'append', 'event', 'turn', 'token']
const MAX_TOKENS = 1_000_000

/**
 * @example
 * planTurn({ messages: [{ role: 'user', content: 'hello' }] }).text.join('') // 'Echo: hello'
 */
export function planTurn(body: ChatBody): Turn {
  const messages = body.messages ?? []
  const last = messages.at(-1)
  const commands = parseCommands(last?.role === 'user' ? textOf(last) : '')
  const turnNumber = messages.filter((m) => m.role === 'assistant').length + 1
  const tools = commands.tools.map((tool, i) => ({ id: `call_${turnNumber}_${i + 1}`, ...tool }))
  const reasoning = words(commands.think.join('\n'))
  const text =
    last?.role === 'tool'
      ? words(toolSummary(messages))
      : commands.tokens !== undefined
        ? tokens(Math.min(commands.tokens, MAX_TOKENS))
        : commands.say.length > 0
          ? words(commands.say.join('\n'))
          : tools.length > 0
            ? []
            : words(`Echo: ${commands.prose || '(nothing to echo)'}`)
  const argumentTokens = tools.reduce((sum, t) => sum + Math.ceil(t.arguments.length / 4), 0)
  const prompt = Math.ceil(JSON.stringify(messages).length / 4)
  const window = windowOf(body.model)
  // Like a vendor, refuse a prompt longer than the model's window, and stop at `max_tokens`.
  const overflow = prompt > window ? { status: 400, message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${prompt} tokens.`, code: 'context_length_exceeded' } : undefined
  const capped = body.max_tokens !== undefined && text.length > body.max_tokens
  if (capped) text.length = body.max_tokens!
  return {
    reasoning,
    text,
    tools,
    finish: tools.length > 0 ? 'tool_calls' : capped ? 'length' : commands.finish,
    slowMs: commands.slowMs,
    truncate: commands.truncate,
    fail: commands.fail ?? overflow,
    usage: {
      prompt,
      completion: reasoning.length + text.length + argumentTokens,
      reasoning: reasoning.length,
    },
  }
}

/** The model's context window, from its catalog row (the vendor and the catalog agree). */
function windowOf(model: string | undefined): number {
  const row = CATALOG_SNAPSHOT.find((p) => p.id === 'local')?.models.find((m) => m.id === model)
  return row?.limits.context ?? Number.POSITIVE_INFINITY
}

/** "calculator returned 5; notes returned saved" for the tool results after the last assistant turn. */
function toolSummary(messages: ChatMessage[]): string {
  const start = messages.findLastIndex((m) => m.role !== 'tool')
  const names = new Map((messages[start]?.tool_calls ?? []).map((c) => [c.id, c.function?.name ?? 'tool']))
  const results = messages.slice(start + 1).map((m) => `${names.get(m.tool_call_id) ?? 'tool'} returned ${textOf(m)}`)
  return `Tool results: ${results.join('; ')}`
}

function textOf(message: ChatMessage): string {
  const content = message.content
  if (typeof content === 'string') return content
  return (content ?? []).map((part) => part.text ?? '').join('')
}

/** `count` deterministic one-word tokens: "neuron edge ledger …". */
function tokens(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? '' : ' ') + WORDS[i % WORDS.length])
}

/** Word-sized pieces, each keeping its leading whitespace, the way tokenizers split. */
function words(text: string): string[] {
  return text.match(/\s*\S+/g) ?? []
}
