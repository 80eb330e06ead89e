/**
 * Reaching a caller's graph without leaving storage behind: addressing a
 * Durable Object creates its storage, so a graph is registered in the directory
 * before its first write, and a read of a graph never written is answered
 * without addressing it (`null` here; empty or not-found to the caller). Both
 * answer `settled` stubs: a graph's refusal reaches the caller as its typed error.
 */
import { exists, register } from '../directory/keys.ts'
import type { Env } from '../core/env.ts'
import { settled } from '../core/rpc.ts'
import type { Caller } from '../access/authorize.ts'
import { graphName } from './namespace.ts'

/**
 * The graph to write to, registered first.
 *
 * @example
 * const graph = await graphToWrite(env, caller, 'org:acme')
 * await graph.remember(caller, { text: 'vpn keys rotate every 90 days' })
 */
export async function graphToWrite(env: Env, caller: Caller, scope?: string) {
  const name = graphName(caller, scope)
  await register(env, `graph:${name}`)
  return settled(env.GRAPHS.getByName(name))
}

/**
 * The graph to read, or `null` when it was never written.
 *
 * @example
 * const graph = await graphToRead(env, caller)
 * const items = graph ? (await graph.recall(caller, { query })).items : []
 */
export async function graphToRead(env: Env, caller: Caller, scope?: string) {
  const name = graphName(caller, scope)
  return (await exists(env, `graph:${name}`)) ? settled(env.GRAPHS.getByName(name)) : null
}
