/**
 * The `memory.pinned` context value: the memories a principal pinned, offered
 * to every session it runs (registered as a context source in
 * objects/session/wiring/toolset.ts). This module only produces the value.
 */
import type { Env } from '../core/env.ts'
import type { Caller } from '../access/authorize.ts'
import { graphToRead } from './graphs.ts'

/** The context key pinned memories are offered under. */
export const PINNED_KEY = 'memory.pinned'

/** One pinned memory as a context source offers it. */
export interface PinnedMemory {
  address: string
  text: string
}

/**
 * The pinned memories of `caller`'s own graph, oldest first, at most `limit`.
 *
 * @example
 * const value = await pinnedMemories(env, { id: 'idp#ada', claims: [] })
 * // [{ address: 'node.knowledge.…', text: 'Answer in metric units' }]
 */
export async function pinnedMemories(env: Env, caller: Caller, limit = 20): Promise<PinnedMemory[]> {
  const graph = await graphToRead(env, caller)
  if (!graph) return []
  const items = await graph.pinned(caller, limit)
  return items.map(({ address, text }) => ({ address, text }))
}
