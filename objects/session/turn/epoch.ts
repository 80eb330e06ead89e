/**
 * Context epochs: what the model is told, made durable. An epoch starts with
 * an immutable baseline stored as an artifact and named by
 * `session.next.epoch.started`: the rendered system text, the snapshot of
 * context sources it was rendered from, and the messages the epoch begins
 * with (none for the first; a summary and the kept tail after a compaction).
 * Within an epoch, source changes arrive as `context.changed` messages, and
 * each step names the tool specs it offered, so any past request can be
 * rebuilt from the ledger (see rebuild.ts).
 */
import type { Ledger } from '../../ledger/ledger.ts'
import type { Json } from '../../ledger/json.ts'
import type { LlmMessage } from '../../llm/types.ts'
import { renderSources, type SourceValue } from './context-sources.ts'

export interface Baseline {
  /** The exact system text of every request in the epoch; null when there is none. */
  system: string | null
  /** The context sources the system text was rendered from. */
  sources: Record<string, SourceValue>
  /** The messages the epoch starts with. */
  messages: LlmMessage[]
  /** The compaction summary, when a compaction started the epoch. */
  summary?: string
}

/** How a source update reads to the model, mid-conversation. */
export const CONTEXT_UPDATE_PREFIX = 'Context update (newer than the system context):\n'

/**
 * The epoch's system text: the session's own instructions, then its context sources.
 *
 * @example
 * systemText('Be brief.', { 'env.date': '2026-11-30' }) // 'Be brief.\n\nContext:\n- env.date: 2026-11-30'
 */
export function systemText(system: string | null, sources: Record<string, SourceValue>): string | null {
  const parts = [system, Object.keys(sources).length > 0 ? `Context:\n${renderSources(sources)}` : null].filter((part): part is string => !!part)
  return parts.length > 0 ? parts.join('\n\n') : null
}

/** A `context.changed` event as the message the model sees at that point. */
export function contextMessage(values: Record<string, Json>): LlmMessage {
  return { role: 'user', content: CONTEXT_UPDATE_PREFIX + renderSources(values) }
}

/**
 * A stored baseline.
 *
 * @example
 * readBaseline(ledger, 'sha256:ab12…').system
 */
export function readBaseline(ledger: Ledger, ref: string): Baseline {
  const bytes = ledger.artifacts.get(ref.replace(/^sha256:/, ''))
  if (!bytes) throw new Error(`context baseline ${ref} is missing`)
  return JSON.parse(new TextDecoder().decode(bytes)) as Baseline
}

/** Stores JSON as an artifact (deduplicated by its hash) and returns its ref. */
export function keepJson(keep: (text: string, kind: string) => string, value: unknown): string {
  return keep(JSON.stringify(value), 'application/json')
}
