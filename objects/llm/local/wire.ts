/**
 * A planned turn as the exact bytes an OpenAI-compatible server streams for
 * `POST /v1/chat/completions` with `stream: true` and
 * `stream_options.include_usage`: one `chat.completion.chunk` per delta, tool
 * calls keyed by `index`, a `finish_reason` chunk, a usage chunk with
 * `choices: []`, then `data: [DONE]`.
 */
import type { Turn } from './reply.ts'

/** Tool arguments stream in pieces this long, as vendors split them. */
const ARGUMENT_PIECE = 8

/**
 * @example
 * sseEvents(planTurn(body), 'echo-1')[0]
 * // 'data: {"id":"chatcmpl-local","object":"chat.completion.chunk",…"delta":{"role":"assistant","content":""}…}\n\n'
 */
export function sseEvents(turn: Turn, model: string): string[] {
  const head =
    '{"id":"chatcmpl-local","object":"chat.completion.chunk","created":0,' +
    `"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":`
  const chunk = (delta: string, finish: string | null = null) =>
    `data: ${head}[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}\n\n`
  const events = [chunk('{"role":"assistant","content":""}')]
  for (const piece of turn.reasoning) events.push(chunk(`{"reasoning_content":${JSON.stringify(piece)}}`))
  for (const piece of turn.text) events.push(chunk(`{"content":${JSON.stringify(piece)}}`))
  turn.tools.forEach((tool, index) => {
    const start = { index, id: tool.id, type: 'function', function: { name: tool.name, arguments: '' } }
    events.push(chunk(`{"tool_calls":[${JSON.stringify(start)}]}`))
    for (let at = 0; at < tool.arguments.length; at += ARGUMENT_PIECE) {
      const piece = { index, function: { arguments: tool.arguments.slice(at, at + ARGUMENT_PIECE) } }
      events.push(chunk(`{"tool_calls":[${JSON.stringify(piece)}]}`))
    }
  })
  if (turn.truncate) return events
  events.push(chunk('{}', turn.finish))
  const { prompt, completion, reasoning } = turn.usage
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  }
  events.push(`data: ${head}[],"usage":${JSON.stringify(usage)}}\n\n`, 'data: [DONE]\n\n')
  return events
}
