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
 * The compaction request is the one request whose size the runner cannot shrink
 * by compacting, so it is bounded by construction: every message is quoted from
 * an excerpt of at most half the transcript's room (its start and its end, with
 * how much was left out between), the transcript keeps its newest part, and the
 * request is measured as it is serialized, not as the text it holds. One reply
 * far larger than the window is thus summarised from its excerpt.
 *
 * Pure: the runner streams the request built here and records the outcome.
 */
import type { LlmMessage, LlmRequest } from '../../llm/types.ts'
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
 * The compaction turn's request: the head as one quoted transcript after the instruction, no
 * tools, output capped at `summaryTokens`. Its messages serialize to at most `maxChars`
 * characters: each message is an excerpt of at most half of that, and the transcript keeps its
 * newest part.
 *
 * @example
 * const request = compactionRequest({ provider: 'local', model: 'echo-small' }, head, 8000, 350)
 */
export function compactionRequest(model: { provider: string; model: string }, head: LlmMessage[], maxChars: number, summaryTokens: number): LlmRequest {
  const room = Math.max(1024, maxChars)
  let transcript = head.map((message) => quote(message, Math.floor(room / 2))).join('\n')
  const messagesFor = (text: string): LlmMessage[] => [{ role: 'user', content: `${SUMMARY_INSTRUCTION}\n\nTranscript:\n${text}` }]
  // Measured as sent: escaping (newlines, quotes, non-ASCII) makes the serialized text longer than the text.
  for (let over = serializedChars(messagesFor(transcript)) - room; over > 0; over = serializedChars(messagesFor(transcript)) - room) {
    transcript = `${OMITTED}${transcript.slice(Math.min(transcript.length, OMITTED.length + Math.ceil(over / 2) + 64))}`
  }
  return {
    provider: model.provider,
    model: model.model,
    system: 'You compact conversation transcripts.',
    messages: messagesFor(transcript),
    maxOutputTokens: summaryTokens,
  }
}

const OMITTED = '[earlier part omitted]\n'

/** Characters of `messages` as a provider request carries them (JSON). */
export function serializedChars(messages: LlmMessage[]): number {
  return JSON.stringify(messages).length
}

/** At most `max` characters of `text`: its start and its end, saying how much was left out between. */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text
  const note = `\n[… ${text.length - max} of ${text.length} characters omitted …]\n`
  const keep = Math.max(0, max - note.length)
  return `${text.slice(0, Math.ceil(keep / 2))}${note}${text.slice(text.length - Math.floor(keep / 2))}`
}

/** The next epoch's baseline: freshly rendered system text, then the summary and the kept tail. */
export function baselineOf(system: string | null, sources: Record<string, SourceValue>, summary: string, tail: LlmMessage[]): Baseline {
  return { system: systemText(system, sources), sources, summary, messages: [{ role: 'user', content: SUMMARY_PREFIX + summary }, ...tail] }
}

/** One message as transcript lines, from an excerpt of at most `max` characters. Every line is quoted, so none reads as an instruction or a command. */
function quote(message: LlmMessage, max: number): string {
  const full =
    message.role === 'assistant'
      ? message.content.map((part) => (part.type === 'tool-call' ? `[calls ${part.name} ${JSON.stringify(part.input)}]` : part.type === 'text' ? part.text : '')).join('\n')
      : message.content
  // Before the lines are quoted: a six-megabyte reply is never split into lines whole.
  const body = excerpt(full, max)
  const who = message.role === 'tool' ? `tool ${message.name}${message.isError ? ' (error)' : ''}` : message.role
  return `[${who}]\n${body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `| ${line}`)
    .join('\n')}`
}
