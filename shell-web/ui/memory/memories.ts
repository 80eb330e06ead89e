/**
 * The person's memories as the memory view shows them, read through the typed client: a page of
 * the memory node's live `remembers`/`pins` edges with each memory's text and sources, or the
 * best recalls of a query. Each memory carries its memory edge, whose author and provenance say
 * who remembered it (a session's agent names its session), and its `regards` sources.
 *
 * @example
 * const { items, next } = await browseMemories(client, { after: 0 })
 * const hits = await recallMemories(client, 'units')
 */
import type { GraphEdge, NeuronApiError, NeuronClient } from '../../../client/index.ts'

/** The memory node of every graph (objects/graph/memory.ts). */
const MEMORY_NODE = 'node.memory.main'
const MEMORY_EDGES = new Set(['remembers', 'pins'])
/** Memories per page (each reads its node's fold). */
export const MEMORY_PAGE = 20

export interface Memory {
  address: string
  text: string
  /** The live memory edge that holds it: `pins` or `remembers`, with author, time and provenance. */
  edge: GraphEdge
  /** Addresses of what it regards: the conversation, turn or artifact it came from. */
  sources: string[]
  /** The recall score, for a recall. */
  score?: number
}

/** The session a memory was remembered in, when an agent's tool remembered it. */
export function sessionOf(memory: Memory): string | null {
  const payload = memory.edge.payload as { session?: unknown } | null
  return typeof payload?.session === 'string' ? payload.session : null
}

/** One page of memories, oldest first; a graph never written has none. */
export async function browseMemories(client: NeuronClient, page: { after?: number }): Promise<{ items: Memory[]; next: number | null }> {
  const graph = client.graph()
  let edges
  try {
    edges = await graph.neighbours(MEMORY_NODE, { direction: 'out', after: page.after ?? 0, limit: MEMORY_PAGE })
  } catch (error) {
    if ((error as NeuronApiError).code === 'UNKNOWN_NODE') return { items: [], next: null }
    throw error
  }
  const held = edges.items.filter((edge) => MEMORY_EDGES.has(edge.type))
  const items = await Promise.all(held.map(async (edge) => {
    const fold = await graph.node(edge.target, { limit: 50 })
    const sources = fold.current.filter((e) => e.type === 'regards' && e.source === edge.target).map((e) => e.target)
    return { address: edge.target, text: fold.node.text ?? '', edge, sources }
  }))
  return { items, next: edges.next }
}

/** The best matches of `query`, best first, each with its memory edge. */
export async function recallMemories(client: NeuronClient, query: string): Promise<Memory[]> {
  const hits = await client.memory().recall({ query, limit: MEMORY_PAGE })
  const graph = client.graph()
  return Promise.all(hits.map(async (hit) => ({ address: hit.address, text: hit.text, edge: await graph.edge(hit.edge), sources: hit.sources, score: hit.score })))
}

/** The session whose conversation node `address` is, or null for any other node. */
export async function conversationSession(client: NeuronClient, address: string): Promise<string | null> {
  if (!address.startsWith('node.conversation.')) return null
  const fold = await client.graph().node(address, { limit: 1 })
  const session = (fold.node.data as { session?: unknown } | null)?.session
  return typeof session === 'string' ? session : null
}
