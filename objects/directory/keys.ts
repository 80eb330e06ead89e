/**
 * Existence checks before an object is addressed: a read of a session or ledger
 * that does not exist must leave nothing behind, and addressing a Durable Object
 * creates its storage. Keys live in a fixed number of DirectoryObject shards (so
 * the files a flood of unknown ids can touch are bounded by `DIRECTORY_SHARDS`), and each
 * isolate remembers the keys it has seen exist (entries are never removed).
 */
import type { OrchestrationListing, SessionListing } from './listing.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { DIRECTORY_SHARDS } from '../core/limits.ts'
import type { Env } from '../core/env.ts'
import { settled } from '../core/rpc.ts'

/** Known keys remembered per isolate; the oldest are forgotten first. */
const REMEMBERED = 10_000
const known = new Set<string>()

function shardOf(env: Env, key: string) {
  return settled(env.DIRECTORY.getByName(`shard-${Number.parseInt(sha256Hex(key).slice(0, 8), 16) % DIRECTORY_SHARDS}`))
}

function remember(key: string): void {
  if (known.size >= REMEMBERED) known.delete(known.values().next().value!)
  known.add(key)
}

/**
 * Whether a session (`session:<id>`) or ledger (`ledger:<principal>/<name>`) exists.
 *
 * @example
 * if (!(await exists(c.env, `session:${id}`))) throw notFound(id)
 */
export async function exists(env: Env, key: string): Promise<boolean> {
  if (known.has(key)) return true
  const found = await shardOf(env, key).has(key)
  if (found) remember(key)
  return found
}

/**
 * Records that a key exists; call after the object's first write succeeded.
 *
 * @example
 * await register(c.env, `ledger:${owner}/${name}`)
 */
export async function register(env: Env, key: string): Promise<void> {
  if (known.has(key)) return
  await shardOf(env, key).add(key)
  remember(key)
}

/**
 * Lists a session among its owner's (idempotent: the listing of a session never changes).
 *
 * @example
 * await listSession(c.env, caller.id, { id, title: null, model: 'local/echo-1', createdAt })
 */
export async function listSession(env: Env, owner: string, session: SessionListing): Promise<void> {
  await shardOf(env, `owner:${owner}`).listSession(owner, session)
}

/**
 * One page of `owner`'s sessions, oldest first.
 *
 * @example
 * const { items, next } = await sessionsOf(c.env, caller.id, { after: 0, limit: 50 })
 */
export function sessionsOf(env: Env, owner: string, page: { after?: number | undefined; limit?: number | undefined }): Promise<{ items: SessionListing[]; next: number | null }> {
  return shardOf(env, `owner:${owner}`).sessionsOf(owner, page.after, page.limit)
}

/**
 * Lists an orchestration among its owner's (idempotent: the listing never changes).
 *
 * @example
 * await listOrchestration(c.env, caller.id, { id, goal: 'Ship it', createdAt })
 */
export async function listOrchestration(env: Env, owner: string, orchestration: OrchestrationListing): Promise<void> {
  await shardOf(env, `owner:${owner}`).listOrchestration(owner, orchestration)
}

/**
 * One page of `owner`'s orchestrations, oldest first.
 *
 * @example
 * const { items, next } = await orchestrationsOf(c.env, caller.id, { after: 0, limit: 50 })
 */
export function orchestrationsOf(env: Env, owner: string, page: { after?: number | undefined; limit?: number | undefined }): Promise<{ items: OrchestrationListing[]; next: number | null }> {
  return shardOf(env, `owner:${owner}`).orchestrationsOf(owner, page.after, page.limit)
}
