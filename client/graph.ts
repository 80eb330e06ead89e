/**
 * The caller's graph and memory (or, with `scope`, the graph of a claim the
 * caller holds, e.g. `org:acme`): nodes and edges as envelopes, a node's fold,
 * neighbours and paths; remember, recall, forget and the pinned memories.
 */
import type { Http } from './http.ts'
import type {
  EdgeInput,
  FoldOptions,
  ForgetInput,
  Forgotten,
  GraphEdge,
  LinkResult,
  NeighbourOptions,
  NeighbourPage,
  NodeFold,
  NodeInput,
  PathOptions,
  PathPage,
  PutNodeResult,
  Recalled,
  RecallInput,
  Remembered,
  RememberInput,
} from './types.ts'

type Query = Record<string, string | number | undefined>

/** `?scope=…&…`, leaving out what is unset. */
function queryOf(scope: string | undefined, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries({ ...query, scope })) if (value !== undefined) params.set(key, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/**
 * @example
 * const graph = neuron.graph()
 * const { node } = await graph.putNode({ kind: 'person', id: 'ada', text: 'Ada Lovelace' })
 * const fold = await graph.node(node.address)
 */
export class GraphClient {
  readonly #http: Http
  readonly #scope: string | undefined

  constructor(http: Http, scope?: string) {
    this.#http = http
    this.#scope = scope
  }

  /** Writes a node (the same node again answers `created: false`). */
  async putNode(input: NodeInput): Promise<PutNodeResult> {
    const res = await this.#http.send('POST', `/v1/graph/nodes${queryOf(this.#scope)}`, input)
    return { node: await res.json(), created: res.status === 201 } as PutNodeResult
  }

  /** A node's state: the fold of its incident edges, paged by `after`/`limit`. */
  node(address: string, page: FoldOptions = {}): Promise<NodeFold> {
    return this.#http.json('GET', `/v1/graph/nodes/${encodeURIComponent(address)}${queryOf(this.#scope, page)}`)
  }

  neighbours(address: string, query: NeighbourOptions = {}): Promise<NeighbourPage> {
    return this.#http.json('GET', `/v1/graph/nodes/${encodeURIComponent(address)}/neighbours${queryOf(this.#scope, query)}`)
  }

  paths(address: string, query: PathOptions = {}): Promise<PathPage> {
    return this.#http.json('GET', `/v1/graph/nodes/${encodeURIComponent(address)}/paths${queryOf(this.#scope, query)}`)
  }

  /** Writes an edge (the same edge again answers `duplicate: true`). */
  async link(input: EdgeInput): Promise<LinkResult> {
    const res = await this.#http.send('POST', `/v1/graph/edges${queryOf(this.#scope)}`, input)
    return { edge: await res.json(), duplicate: res.status === 200 } as LinkResult
  }

  edge(id: string): Promise<GraphEdge> {
    return this.#http.json('GET', `/v1/graph/edges/${encodeURIComponent(id)}${queryOf(this.#scope)}`)
  }

  /** Retires an edge with a reason; history keeps both readings. */
  prune(id: string, reason: string): Promise<GraphEdge> {
    return this.#http.json('POST', `/v1/graph/edges/${encodeURIComponent(id)}/prune${queryOf(this.#scope)}`, { reason })
  }
}

/**
 * @example
 * const memory = neuron.memory()
 * await memory.remember({ text: 'Ada prefers metric units', pinned: true })
 * const hits = await memory.recall({ query: 'units' })
 */
export class MemoryClient {
  readonly #http: Http
  readonly #scope: string | undefined

  constructor(http: Http, scope?: string) {
    this.#http = http
    this.#scope = scope
  }

  async remember(input: RememberInput): Promise<{ memory: Remembered; duplicate: boolean }> {
    const res = await this.#http.send('POST', `/v1/memory/remember${queryOf(this.#scope)}`, input)
    return { memory: (await res.json()) as Remembered, duplicate: res.status === 200 }
  }

  /** Memories matching `query`, best first (BM25, recency and edge type). */
  async recall(input: RecallInput): Promise<Recalled[]> {
    return (await this.#http.json<{ items: Recalled[] }>('POST', `/v1/memory/recall${queryOf(this.#scope)}`, input)).items
  }

  forget(input: ForgetInput): Promise<Forgotten> {
    return this.#http.json('POST', `/v1/memory/forget${queryOf(this.#scope)}`, input)
  }

  async pinned(): Promise<Recalled[]> {
    return (await this.#http.json<{ items: Recalled[] }>('GET', `/v1/memory/pinned${queryOf(this.#scope)}`)).items
  }
}
