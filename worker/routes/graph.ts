/**
 * `/v1/graph/…` and `/v1/memory/…`: the caller's graph (or, with `?scope=org:acme`,
 * the graph of a claim the caller holds) over HTTP. The route resolves which
 * graph; the GraphObject authorizes the caller against it and validates input.
 * A graph never written is not addressed: reads answer empty or not found.
 */
import type { Context } from 'hono'
import { graphToRead, graphToWrite } from '../../objects/graph/graphs.ts'
import { EdgeBody, FoldQuery, ForgetBody, NeighbourQuery, NodeBody, PathQuery, PruneBody, RecallBody, RememberBody, ScopeQuery } from '../../objects/graph/inputs.ts'
import { matchExpression } from '../../objects/graph/memory.ts'
import { Address } from '../../objects/graph/vocabulary.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_GRAPH_BODY } from '../../objects/core/limits.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { REQUEST_ERRORS } from '../openapi/body-errors.ts'
import * as R from '../openapi/responses.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'

/** Every graph route resolves `?scope=`: the caller's own graph, or a claim's it holds. */
const GRAPH_ERRORS = ['INVALID_QUERY', 'CLAIM_REQUIRED']

/**
 * The `/v1/graph` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * GRAPH_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const GRAPH_ROUTES = [
  route({
    method: 'post',
    path: '/v1/graph/nodes',
    operationId: 'createNode',
    summary: 'Create a node (node.{kind}.{id}); the same node again is a no-op',
    auth: 'bearer',
    query: ScopeQuery,
    body: NodeBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 201: 'created', 200: 'the same node already existed' },
    response: R.GraphNode,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'NODE_EXISTS', 'TEXT_TOO_LARGE'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const { node, created } = await (await writable(c)).putNode(callerOf(c), body)
      return c.json(node, created ? 201 : 200)
    },
  }),
  route({
    method: 'get',
    path: '/v1/graph/nodes/{address}',
    operationId: 'getNode',
    summary: "A node's state: the fold of its incident edges (current and history), paged",
    auth: 'bearer',
    query: FoldQuery,
    ok: { 200: 'the folded state' },
    response: R.NodeState,
    errors: [...GRAPH_ERRORS, 'INVALID_ADDRESS', 'UNKNOWN_NODE'],
    handler: async (c) => c.json(await (await readable(c, unknownNode(c))).fold(callerOf(c), c.req.param('address'), { ...c.req.query() })),
  }),
  route({
    method: 'get',
    path: '/v1/graph/nodes/{address}/neighbours',
    operationId: 'listNeighbours',
    summary: 'Live edges by type and direction, paged by sequence',
    auth: 'bearer',
    query: NeighbourQuery,
    ok: { 200: 'a page of edges' },
    response: R.EdgePage,
    errors: [...GRAPH_ERRORS, 'INVALID_ADDRESS', 'UNKNOWN_NODE'],
    handler: async (c) => c.json(await (await readable(c, unknownNode(c))).neighbours(callerOf(c), c.req.param('address'), { ...c.req.query() })),
  }),
  route({
    method: 'get',
    path: '/v1/graph/nodes/{address}/paths',
    operationId: 'listPaths',
    summary: 'Nodes reachable along live edges, nearest first, bounded depth',
    auth: 'bearer',
    query: PathQuery,
    ok: { 200: 'a page of reached nodes' },
    response: R.PathPage,
    errors: [...GRAPH_ERRORS, 'INVALID_ADDRESS', 'UNKNOWN_NODE', 'INVALID_DEPTH'],
    handler: async (c) => c.json(await (await readable(c, unknownNode(c))).paths(callerOf(c), c.req.param('address'), { ...c.req.query() })),
  }),
  route({
    method: 'post',
    path: '/v1/graph/edges',
    operationId: 'createEdge',
    summary: 'Append a typed edge (an envelope); `supersedes` revises an earlier edge of the same source',
    auth: 'bearer',
    query: ScopeQuery,
    body: EdgeBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 201: 'appended', 200: 'identical content was already there' },
    response: R.GraphEdge,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_NODE', 'SELF_EDGE', 'CYCLE', 'UNKNOWN_EDGE', 'EDGE_RETIRED', 'NOT_SAME_SOURCE'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const { edge, duplicate } = await (await writable(c)).link(callerOf(c), body)
      return c.json(edge, duplicate ? 200 : 201)
    },
  }),
  route({
    method: 'get',
    path: '/v1/graph/edges/{id}',
    operationId: 'getEdge',
    summary: 'One edge, with its retirement if pruned or superseded',
    auth: 'bearer',
    query: ScopeQuery,
    ok: { 200: 'the edge' },
    response: R.GraphEdge,
    errors: [...GRAPH_ERRORS, 'UNKNOWN_EDGE'],
    handler: async (c) => c.json(await (await readable(c, unknownEdge(c))).edge(callerOf(c), c.req.param('id'))),
  }),
  route({
    method: 'post',
    path: '/v1/graph/edges/{id}/prune',
    operationId: 'pruneEdge',
    summary: 'Prune an edge with a reason; history keeps it',
    auth: 'bearer',
    query: ScopeQuery,
    body: PruneBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 200: 'the retired edge' },
    response: R.GraphEdge,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_EDGE', 'EDGE_RETIRED'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      return c.json(await (await readable(c, unknownEdge(c))).prune(callerOf(c), c.req.param('id'), body))
    },
  }),
]

/**
 * The `/v1/memory` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * MEMORY_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const MEMORY_ROUTES = [
  route({
    method: 'post',
    path: '/v1/memory/remember',
    operationId: 'remember',
    summary: 'Remember a text: a knowledge node the memory node `remembers` (or `pins`)',
    auth: 'bearer',
    query: ScopeQuery,
    body: RememberBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 201: 'remembered', 200: 'already remembered' },
    response: R.Recalled,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_NODE', 'TEXT_TOO_LARGE', 'EMPTY_TEXT'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const { memory: remembered, duplicate } = await (await writable(c)).remember(callerOf(c), body)
      return c.json(remembered, duplicate ? 200 : 201)
    },
  }),
  route({
    method: 'post',
    path: '/v1/memory/recall',
    operationId: 'recall',
    summary: 'Recall memories: FTS5 BM25 over their text, weighted by recency and edge type, with sources',
    auth: 'bearer',
    query: ScopeQuery,
    body: RecallBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 200: 'the best matches, best first' },
    response: R.Recalls,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'EMPTY_QUERY'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const graph = await graphToRead(c.env, callerOf(c), scopeOf(c))
      if (graph) return c.json(await graph.recall(callerOf(c), body))
      // A graph never written recalls nothing; the request is still checked the same way.
      matchExpression(parseOrThrow(RecallBody, body, 'INVALID_REQUEST').query)
      return c.json({ items: [] })
    },
  }),
  route({
    method: 'post',
    path: '/v1/memory/forget',
    operationId: 'forget',
    summary: 'Forget a memory (prune, or supersede with a replacement) with a reason; history keeps it',
    auth: 'bearer',
    query: ScopeQuery,
    body: ForgetBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 200: 'the retired memory edge, and the replacement if any' },
    response: R.Forgotten,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_MEMORY', 'TEXT_TOO_LARGE', 'SAME_MEMORY', 'MEMORY_EXISTS'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const address = (body as { address?: unknown } | null)?.address
      const none = new NeuronError('UNKNOWN_MEMORY', `nothing in memory holds ${String(address)}`, { status: 404, details: { address } })
      return c.json(await (await readable(c, none)).forget(callerOf(c), body))
    },
  }),
  route({
    method: 'get',
    path: '/v1/memory/pinned',
    operationId: 'listPinned',
    summary: 'The pinned memories (the `memory.pinned` context value)',
    auth: 'bearer',
    query: ScopeQuery,
    ok: { 200: 'pinned memories, oldest first' },
    response: R.Recalls,
    errors: GRAPH_ERRORS,
    handler: async (c) => {
      const graph = await graphToRead(c.env, callerOf(c), scopeOf(c))
      return c.json({ items: graph ? await graph.pinned(callerOf(c)) : [] })
    },
  }),
]

/** The `/v1/graph` router, mounted by worker/neuron.ts: `app.route('/v1/graph', graph)`. */
export const graph = mount('/v1/graph', GRAPH_ROUTES)
/** The `/v1/memory` router, mounted by worker/neuron.ts: `app.route('/v1/memory', memory)`. */
export const memory = mount('/v1/memory', MEMORY_ROUTES)

function scopeOf(c: Context<AppEnv>): string | undefined {
  return parseOrThrow(ScopeQuery, { scope: c.req.query('scope') }, 'INVALID_QUERY').scope
}

function writable(c: Context<AppEnv>) {
  return graphToWrite(c.env, callerOf(c), scopeOf(c))
}

/** The graph to read, or `missing` thrown when it was never written. */
async function readable(c: Context<AppEnv>, missing: NeuronError) {
  const graph = await graphToRead(c.env, callerOf(c), scopeOf(c))
  if (!graph) throw missing
  return graph
}

/** `UNKNOWN_NODE` for the route's address, once it is a valid address (`INVALID_ADDRESS` otherwise). */
function unknownNode(c: Context<AppEnv>): NeuronError {
  const address = parseOrThrow(Address, c.req.param('address'), 'INVALID_ADDRESS')
  return new NeuronError('UNKNOWN_NODE', `no node ${address}`, { status: 404, details: { address } })
}

function unknownEdge(c: Context<AppEnv>): NeuronError {
  const id = c.req.param('id')
  return new NeuronError('UNKNOWN_EDGE', `no edge ${id}`, { status: 404, details: { edge: id } })
}
