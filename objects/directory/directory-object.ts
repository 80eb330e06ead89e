/**
 * DirectoryObject: which sessions and ledgers exist, so a read of an unknown id
 * is answered without reaching (and so creating) that id's object. A Durable
 * Object gets its SQLite database the moment it is first addressed, even if it
 * never writes; the worker asks a directory shard first (see
 * objects/directory/keys.ts) and only addresses objects the directory knows.
 *
 * An entry is an envelope whose content is just its key, at a fixed time: its
 * content id is a function of the key, so `has` is one primary-key lookup and
 * adding a key twice is the ledger's ordinary duplicate no-op.
 *
 * The directory also lists each principal's sessions: one envelope per session
 * on a topic of the principal's, in the shard its principal hashes to, so a
 * listing is one indexed page read. Its content is the session's listing, which
 * never changes, so listing a session again is a duplicate no-op too. What its owner changes later
 * (title, archive) are events of their own, folded over the listing as it is read (marks.ts).
 * Orchestrations are listed the same way, on a second topic of the principal's.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import { answerFailures } from '../core/rpc.ts'
import { seal } from '../ledger/envelope.ts'
import { sha256Hex } from '../ledger/hash.ts'
import type { Json } from '../ledger/json.ts'
import { clampLimit, Ledger } from '../ledger/ledger.ts'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_BY_SEQ_TABLES } from '../ledger/tables.ts'
import type { ListedSession, ListingFilter, OrchestrationListing, SessionListing } from './listing.ts'
import { archivedMark, currentTitle, isArchived, titled } from './marks.ts'
import { SESSION_TITLE_LIMITS } from '../core/limits.ts'
import legacy from '../../migrations/legacy/directory/migrations.js'

const TOPIC = 'directory.entries'

/** The draft that records `key`; the same key always seals to the same id. */
function entry(key: string) {
  return { topic: TOPIC, type: 'directory.entry', author: 'object:directory', time: 0, payload: { key } }
}

/**
 * @example
 * await env.DIRECTORY.getByName('shard-3').add('session:demo')
 * await env.DIRECTORY.getByName('shard-3').has('session:demo') // true
 */
/**
 * A directory shard's tables: the ledger's, keyed by sequence (a topic per principal). Its objects
 * built before composition carry the folder now under migrations/legacy/directory.
 */
export const TABLES = tables([LEDGER_BY_SEQ_TABLES], { folder: legacy, equals: { 'ledger-by-seq': '0000_init' } })

export class DirectoryObject extends DurableObject<Env> {
  private readonly ledger: Ledger

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    // Its own folder: the log keyed by sequence, since a shard writes a topic per principal (see ./schema.ts).
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  /** Records that `key` exists; idempotent. */
  add(key: string): void {
    this.ledger.append(entry(key))
  }

  /** Whether `key` was ever added. */
  has(key: string): boolean {
    return this.ledger.get(seal(entry(key)).envelope.id) !== undefined
  }

  /** Lists `session` among `owner`'s sessions; idempotent. */
  listSession(owner: string, session: SessionListing): void {
    this.ledger.append({ topic: listingTopic(owner), type: 'directory.session', author: 'object:directory', time: session.createdAt, payload: session as unknown as Json })
  }

  /**
   * A page of `owner`'s sessions in `filter.order` (oldest first by default) after the cursor `from`
   * (0: the start), each with its latest title and archive state. A search or an archive filter reads
   * at most `SESSION_TITLE_LIMITS.scan` listings per page, so a sparse match answers fewer items and
   * a `next` to continue from.
   */
  sessionsOf(owner: string, from = 0, limit = 50, filter: ListingFilter = {}): { items: ListedSession[]; next: number | null } {
    // Checked before the scan: a filtered scan may never reach the ledger's own check.
    clampLimit(limit)
    const topic = listingTopic(owner)
    const wantArchived = filter.archived ?? false
    const needle = filter.q?.toLocaleLowerCase()
    const items: ListedSession[] = []
    let cursor = from
    let scanned = 0
    while (items.length < limit && scanned < SESSION_TITLE_LIMITS.scan) {
      const take = Math.min(limit - items.length, SESSION_TITLE_LIMITS.scan - scanned)
      const page = filter.order === 'newest'
        ? this.ledger.byTopicNewest(topic, { before: cursor === 0 ? undefined : cursor, limit: take })
        : this.ledger.byTopic(topic, { after: cursor, limit: take })
      for (const envelope of page.items) {
        const listed = this.current(owner, envelope.payload as unknown as SessionListing)
        const title = listed.title ?? ''
        if (listed.archived === wantArchived && (needle === undefined || title.toLocaleLowerCase().includes(needle) || listed.id.toLocaleLowerCase().includes(needle))) items.push(listed)
      }
      scanned += page.items.length
      if (page.next === null) return { items, next: null }
      cursor = page.next
    }
    return { items, next: cursor }
  }

  /**
   * An owner's change to a session's listing, in one call: the title its first prompt gives it
   * (only while it has none), a rename, archive or restore. A change to what is already so writes
   * nothing. Answers the title (undefined: none recorded) and archive state now.
   */
  mark(owner: string, id: string, mark: { title?: string | undefined; archived?: boolean | undefined; promptTitle?: string | undefined }): { title: string | undefined; archived: boolean } {
    let title = currentTitle(this.ledger, owner, id)
    let archived = isArchived(this.ledger, owner, id)
    if (mark.promptTitle !== undefined && title === undefined) {
      this.ledger.append(titled(owner, id, mark.promptTitle, 'prompt', 0))
      title = mark.promptTitle
    }
    if (mark.title !== undefined && mark.title !== title) {
      this.ledger.append(titled(owner, id, mark.title, 'owner', Date.now()))
      title = mark.title
    }
    if (mark.archived !== undefined && mark.archived !== archived) {
      this.ledger.append(archivedMark(owner, id, mark.archived, Date.now()))
      archived = mark.archived
    }
    return { title, archived }
  }

  /** A listing with its owner's changes folded over it. */
  private current(owner: string, listing: SessionListing): ListedSession {
    return { ...listing, title: currentTitle(this.ledger, owner, listing.id) ?? listing.title, archived: isArchived(this.ledger, owner, listing.id) }
  }

  /** Lists `orchestration` among `owner`'s orchestrations; idempotent. */
  listOrchestration(owner: string, orchestration: OrchestrationListing): void {
    this.ledger.append({ topic: orchestrationTopic(owner), type: 'directory.orchestration', author: 'object:directory', time: orchestration.createdAt, payload: orchestration as unknown as Json })
  }

  /** `owner`'s orchestrations, oldest first, one page after `after` (a sequence of this shard). */
  orchestrationsOf(owner: string, after = 0, limit = 50): { items: OrchestrationListing[]; next: number | null } {
    const page = this.ledger.byTopic(orchestrationTopic(owner), { after, limit })
    return { items: page.items.map((envelope) => envelope.payload as unknown as OrchestrationListing), next: page.next }
  }
}

/** A principal's orchestration listing topic (a sibling of its sessions'). */
function orchestrationTopic(owner: string): string {
  return `directory.orchestrations.${sha256Hex(owner).slice(0, 32)}`
}

/** A principal's listing topic: principal ids may hold characters an address segment cannot. */
function listingTopic(owner: string): string {
  return `directory.sessions.${sha256Hex(owner).slice(0, 32)}`
}

// Expected failures are answers, not uncaught errors (objects/core/rpc.ts); keys.ts calls through `settled`.
answerFailures(DirectoryObject, ['add', 'has', 'listSession', 'sessionsOf', 'mark', 'listOrchestration', 'orchestrationsOf'])
