/**
 * `/v1/graph/…` and `/v1/memory/…`: the caller's graph (or, with `?scope=org:acme`,
 * the graph of a claim the caller holds) over HTTP. The route resolves which
 * graph; the GraphObject authorizes the caller against it and validates input.
 * A graph never written is not addressed: reads answer empty or not found.
 */
import { type Context, Hono } from 'hono'
import { graphToRead, graphToWrite } from '../../objects/graph/graphs.ts'
import { RecallBody, ScopeQuery } from '../../objects/graph/inputs.ts'
import { matchExpression } from '../../objects/graph/memory.ts'
import { Address } from '../../objects/graph/vocabulary.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_GRAPH_BODY } from '../../objects/core/limits.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { readJson } from '../read-json.ts'

export const graph = new Hono<AppEnv>()
  .post('/nodes', limitBody(MAX_GRAPH_BODY), async (c) => {
    const body = await readJson(c.req.raw)
    const { node, created } = await (await writable(c)).putNode(callerOf(c), body)
    return c.json(node, created ? 201 : 200)
  })
  .get('/nodes/:address', async (c) => c.json(await (await readable(c, unknownNode(c))).fold(callerOf(c), c.req.param('address'), { ...c.req.query() })))
  .get('/nodes/:address/neighbours', async (c) => c.json(await (await readable(c, unknownNode(c))).neighbours(callerOf(c), c.req.param('address'), { ...c.req.query() })))
  .get('/nodes/:address/paths', async (c) => c.json(await (await readable(c, unknownNode(c))).paths(callerOf(c), c.req.param('address'), { ...c.req.query() })))
  .post('/edges', limitBody(MAX_GRAPH_BODY), async (c) => {
    const body = await readJson(c.req.raw)
    const { edge, duplicate } = await (await writable(c)).link(callerOf(c), body)
    return c.json(edge, duplicate ? 200 : 201)
  })
  .get('/edges/:id', async (c) => c.json(await (await readable(c, unknownEdge(c))).edge(callerOf(c), c.req.param('id'))))
  .post('/edges/:id/prune', limitBody(MAX_GRAPH_BODY), async (c) => {
    const body = await readJson(c.req.raw)
    return c.json(await (await readable(c, unknownEdge(c))).prune(callerOf(c), c.req.param('id'), body))
  })

export const memory = new Hono<AppEnv>()
  .post('/remember', limitBody(MAX_GRAPH_BODY), async (c) => {
    const body = await readJson(c.req.raw)
    const { memory: remembered, duplicate } = await (await writable(c)).remember(callerOf(c), body)
    return c.json(remembered, duplicate ? 200 : 201)
  })
  .post('/recall', limitBody(MAX_GRAPH_BODY), async (c) => {
    const body = await readJson(c.req.raw)
    const graph = await graphToRead(c.env, callerOf(c), scopeOf(c))
    if (graph) return c.json(await graph.recall(callerOf(c), body))
    // A graph never written recalls nothing; the request is still checked the same way.
    matchExpression(parseOrThrow(RecallBody, body, 'INVALID_REQUEST').query)
    return c.json({ items: [] })
  })
  .post('/forget', limitBody(MAX_GRAPH_BODY), async (c) => {
    const body = await readJson(c.req.raw)
    const address = (body as { address?: unknown } | null)?.address
    const none = new NeuronError('UNKNOWN_MEMORY', `nothing in memory holds ${String(address)}`, { status: 404, details: { address } })
    return c.json(await (await readable(c, none)).forget(callerOf(c), body))
  })
  .get('/pinned', async (c) => {
    const graph = await graphToRead(c.env, callerOf(c), scopeOf(c))
    return c.json({ items: graph ? await graph.pinned(callerOf(c)) : [] })
  })

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
