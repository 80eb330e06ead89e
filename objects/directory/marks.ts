/**
 * What an owner changes about a session's listing after it was created: its title and whether it is
 * archived. Each change is an event on a topic of its own per (owner, session, field), folded latest
 * wins, so the current value is one indexed read (`latest`) and a change never rewrites a row. A
 * title taken from the first prompt is the same event with `from: 'prompt'`, sealed at a fixed time
 * (a retry is the ledger's duplicate no-op) and written only while the session has no title.
 *
 * @example
 * ledger.append(titled(owner, 'demo', 'Release notes', 'owner', Date.now()))
 * currentTitle(ledger, owner, 'demo') // 'Release notes'
 */
import type { Ledger } from '../ledger/ledger.ts'
import { sha256Hex } from '../ledger/hash.ts'

/** Who gave a session its title: its owner (a rename) or its first prompt. */
export type TitleSource = 'owner' | 'prompt'

const AUTHOR = 'object:directory'

/** A field's topic: owner and session ids may hold characters an address segment cannot. */
function topicOf(field: 'title' | 'archive', owner: string, id: string): string {
  return `directory.${field}.${sha256Hex(`${owner}\n${id}`).slice(0, 32)}`
}

/** The event that titles `id`; one from the prompt is sealed at time 0, so it is written once. */
export function titled(owner: string, id: string, title: string, from: TitleSource, time: number) {
  return { topic: topicOf('title', owner, id), type: 'directory.session.titled', author: AUTHOR, time: from === 'prompt' ? 0 : time, payload: { id, title, from } }
}

/** The event that archives (or restores) `id`. */
export function archivedMark(owner: string, id: string, archived: boolean, time: number) {
  return { topic: topicOf('archive', owner, id), type: 'directory.session.archived', author: AUTHOR, time, payload: { id, archived } }
}

/** The latest title event's title, or undefined when none was recorded. */
export function currentTitle(ledger: Ledger, owner: string, id: string): string | undefined {
  return (ledger.latest(topicOf('title', owner, id))?.payload as { title: string } | undefined)?.title
}

/** Whether the latest archive event archived it (none: not archived). */
export function isArchived(ledger: Ledger, owner: string, id: string): boolean {
  return (ledger.latest(topicOf('archive', owner, id))?.payload as { archived: boolean } | undefined)?.archived === true
}
