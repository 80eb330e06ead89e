/**
 * The session's workspace (docs/workspace.md), wired to the session: a `WorkspaceStore` over the
 * session's ledger, its events on the workspace's own topic (`session.{id}.workspace`), its index
 * table migrated with the session (`WORKSPACE_TABLES` in the session's composition). What the work tools, the routes and lineage use of it is here,
 * so the session object only builds one and delegates.
 *
 * A fork's workspace starts as the origin's tree at the fork point (`inherit`: one
 * `workspace.forked` event naming the origin, and one index row per file naming the origin's
 * content ids; no blob is copied). A blob this session does not hold is read through from the
 * origin, which itself reads through from its own: content-addressed stores only grow, so a content
 * id the index names is always found along the lineage. Nothing of the tree is held in memory
 * beyond what one call touches.
 */
import type { Caller } from '../../access/authorize.ts'
import type { Env } from '../../core/env.ts'
import { MAX_PAGE } from '../../core/limits.ts'
import { settled } from '../../core/rpc.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import type { WorkspaceHost } from '../../workspace/host.ts'
import { type Committed, type FileWrite, type Listing, ledgerLog, WorkspaceStore } from '../../workspace/store.ts'
import type { FileEntry } from '../../workspace/tree.ts'

/** The event a fork's workspace starts with: where its tree came from. */
export const WORKSPACE_FORKED = 'workspace.forked'

/** What a fork reads of its origin: authorized pages of the origin's tree at the fork point. */
export interface OriginTree {
  workspaceList(caller: Caller, query: unknown): Promise<{ entries: FileEntry[]; next: string | null }>
}

/**
 * The origin's tree at `at`, page by page, read before a fork writes anything. A tree is at most
 * `WORKSPACE_LIMITS.files` entries (a path, a content id and a size each), which is what one fork
 * call holds.
 *
 * @example
 * const entries = await treeAt(origin, caller, 12)
 * workspace.inherit(from, 12, entries)
 */
export async function treeAt(origin: OriginTree, caller: Caller, at: number): Promise<FileEntry[]> {
  const entries: FileEntry[] = []
  let after: string | undefined
  for (;;) {
    const page = await origin.workspaceList(caller, { at: String(at), limit: String(MAX_PAGE), ...(after === undefined ? {} : { after }) })
    for (const { path, content, size } of page.entries) entries.push({ path, content, size })
    if (page.next === null) return entries
    after = page.next
  }
}

/** What a session answers another session of its lineage: a blob by content id, or null. */
export interface LineageBlobs {
  workspaceBlob(hash: string): Promise<Uint8Array | null>
}

/**
 * @example
 * const workspace = new SessionWorkspace({ ledger, storage: ctx.storage, topic, sessions: env.SESSIONS })
 * workspace.commit([{ path: 'a.txt', bytes }], toolCallId)
 * await workspace.read('a.txt')
 */
export class SessionWorkspace implements WorkspaceHost {
  readonly store: WorkspaceStore
  readonly topic: string
  private readonly ledger: Ledger

  constructor(
    private readonly host: { ledger: Ledger; storage: DurableObjectStorage; topic: string; sessions: Env['SESSIONS'] },
  ) {
    this.ledger = host.ledger
    this.topic = `${host.topic}.workspace`
    this.store = new WorkspaceStore(host.storage, host.ledger.artifacts, ledgerLog(host.ledger, this.topic, 'object:session'))
  }

  /** The session this workspace was forked from, or null (read from the topic's first event). */
  origin(): string | null {
    const [first] = this.ledger.byTopic(this.topic, { limit: 1 }).items
    return first?.type === WORKSPACE_FORKED ? ((first.payload as { from: string }).from ?? null) : null
  }

  /** A blob by content id: this session's, or read through from its origin. */
  async blob(hash: string): Promise<Uint8Array | null> {
    const own = this.ledger.artifacts.get(hash)
    if (own !== null) return own
    const origin = this.origin()
    if (origin === null) return null
    return (await settled(this.host.sessions.getByName(origin)).workspaceBlob(hash)) as Uint8Array | null
  }

  /** The file at `path` as of `at` (default: now), or null. */
  entry(path: string, at?: number): FileEntry | null {
    return this.store.entry(path, at)
  }

  /** A page of the files under `dir` (store.ts `list`). */
  list(dir: string, options?: { at?: number; after?: string; limit?: number }): Listing {
    return this.store.list(dir, options)
  }

  /** The bytes of the file at `path` as of `at` (default: now), or null. */
  async read(path: string, at?: number): Promise<Uint8Array | null> {
    const entry = this.store.entry(path, at)
    if (entry === null) return null
    return this.bytesOf(entry)
  }

  /** The bytes of an entry (a blob the index names is found along the lineage, or the store is broken). */
  async bytesOf(entry: FileEntry): Promise<Uint8Array> {
    const bytes = await this.blob(entry.content)
    if (bytes === null) throw new Error(`workspace blob ${entry.content} of ${entry.path} is missing`)
    return bytes
  }

  /** The files `paths` name, read now, for a synchronous planner (a patch, a search page). */
  async readMany(paths: Iterable<string>): Promise<Map<string, Uint8Array | null>> {
    const out = new Map<string, Uint8Array | null>()
    for (const path of paths) if (!out.has(path)) out.set(path, await this.read(path))
    return out
  }

  /** Writes an operation's files as one decision (store.ts `commit`). */
  commit(writes: FileWrite[], by: string): Committed {
    return this.store.commit(writes, by)
  }

  /** Takes the tree back to sequence `at` (a truncation): new changes, blobs shared. */
  revertTo(at: number, by: string): Committed {
    return this.store.revertTo(at, by)
  }

  /**
   * Starts this workspace from `entries`, the origin's tree at the fork point (read before the
   * fork writes anything). Writes nothing for an empty tree.
   */
  inherit(from: string, at: number, entries: FileEntry[]): void {
    if (entries.length === 0) return
    this.store.inherit(entries, () => this.ledger.append({ topic: this.topic, type: WORKSPACE_FORKED, author: 'object:session', payload: { from, at, files: entries.length } }).envelope.seq)
  }
}
