/**
 * Compaction: how an over-budget transcript becomes a new context epoch. The
 * oldest part of the epoch's messages (the head) is rendered as a quoted
 * transcript and summarised by one provider turn; the newest part (the tail,
 * starting at a user message, at most a quarter of the budget) is kept
 * verbatim. The new epoch's baseline is the summary as a user message followed
 * by the tail, stored as an artifact and named by `compaction.ended`: until
 * that event exists nothing the model is shown has changed, so a compaction
 * that crashes, fails or is interrupted is invisible. Nothing is deleted.
 *
 * Pure: the runner streams the request built here and records the outcome.
 */
import type { LlmMessage, LlmRequest } from '../llm/types.ts'
import type { SourceValue } from './context-sources.ts'
import { type Baseline, systemText } from './epoch.ts'

/** The instruction of the compaction turn. */
export const SUMMARY_INSTRUCTION =
  'Summarise the conversation transcript below so that it can continue from your summary alone. ' +
  'Keep facts, decisions, names, numbers, tool results that matter and open tasks; drop chatter.'

/** How the summary is introduced to the model at the start of the next epoch. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation (older turns were compacted):\n'

/**
 * Splits an epoch's messages into the head to summarise and the tail to keep:
 * the longest suffix that starts at a user message and fits in `tailChars`.
 *
 * @example
 * const { head, tail } = splitForCompaction(messages, 4000)
 */
export function splitForCompaction(messages: LlmMessage[], tailChars: number): { head: LlmMessage[]; tail: LlmMessage[] } {
  let cut = messages.length
  let chars = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    chars += JSON.stringify(messages[i]).length
    if (chars > tailChars) break
    if (messages[i]!.role === 'user') cut = i
  }
  // Never keep everything: a compaction that summarises nothing cannot shrink the context.
  if (cut === 0) cut = messages.findIndex((m, i) => i > 0 && m.role === 'user')
  if (cut <= 0) cut = messages.length
  return { head: messages.slice(0, cut), tail: messages.slice(cut) }
}

/**
 * The compaction turn's request: the head as one quoted transcript (the newest `maxChars` of it)
 * after the instruction, no tools, output capped at `summaryTokens`.
 *
 * @example
 * const request = compactionRequest({ provider: 'local', model: 'echo-small' }, head, 8000, 350)
 */
export function compactionRequest(model: { provider: string; model: string }, head: LlmMessage[], maxChars: number, summaryTokens: number): LlmRequest {
  let transcript = head.map(quote).join('\n')
  if (transcript.length > maxChars) transcript = `[earlier part omitted]\n${transcript.slice(transcript.length - maxChars)}`
  return {
    provider: model.provider,
    model: model.model,
    system: 'You compact conversation transcripts.',
    messages: [{ role: 'user', content: `${SUMMARY_INSTRUCTION}\n\nTranscript:\n${transcript}` }],
    maxOutputTokens: summaryTokens,
  }
}

/** The next epoch's baseline: freshly rendered system text, then the summary and the kept tail. */
export function baselineOf(system: string | null, sources: Record<string, SourceValue>, summary: string, tail: LlmMessage[]): Baseline {
  return { system: systemText(system, sources), sources, summary, messages: [{ role: 'user', content: SUMMARY_PREFIX + summary }, ...tail] }
}

/** One message as transcript lines. Every line is quoted, so none reads as an instruction or a command. */
function quote(message: LlmMessage): string {
  const body =
    message.role === 'assistant'
      ? message.content.map((part) => (part.type === 'tool-call' ? `[calls ${part.name} ${JSON.stringify(part.input)}]` : part.type === 'text' ? part.text : '')).join('\n')
      : message.content
  const who = message.role === 'tool' ? `tool ${message.name}${message.isError ? ' (error)' : ''}` : message.role
  return `[${who}]\n${body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `| ${line}`)
    .join('\n')}`
}
