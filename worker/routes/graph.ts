/**
 * `/v1/graph/…` and `/v1/memory/…`: the caller's graph (or, with `?scope=org:acme`,
 * the graph of a claim the caller holds) over HTTP. The route resolves which
 * graph; the GraphObject authorizes the caller against it and validates input.
 */
import { type Context, Hono } from 'hono'
import { graphName } from '../../objects/graph/namespace.ts'
import { ScopeQuery } from '../../objects/graph/inputs.ts'
import { parseOrThrow } from '../../objects/validate.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { readJson } from '../read-json.ts'

/** Graph request bodies are small: node text is capped at 16 KiB, and JSON data rides along. */
export const MAX_GRAPH_BODY = 256 * 1024

export const graph = new Hono<AppEnv>()
  .post('/nodes', limitBody(MAX_GRAPH_BODY), async (c) => {
    const { node, created } = await stub(c).putNode(callerOf(c), await readJson(c.req.raw))
    return c.json(node, created ? 201 : 200)
  })
  .get('/nodes/:address', async (c) => c.json(await stub(c).fold(callerOf(c), c.req.param('address'), { ...c.req.query() })))
  .get('/nodes/:address/neighbours', async (c) => c.json(await stub(c).neighbours(callerOf(c), c.req.param('address'), { ...c.req.query() })))
  .get('/nodes/:address/paths', async (c) => c.json(await stub(c).paths(callerOf(c), c.req.param('address'), { ...c.req.query() })))
  .post('/edges', limitBody(MAX_GRAPH_BODY), async (c) => {
    const { edge, duplicate } = await stub(c).link(callerOf(c), await readJson(c.req.raw))
    return c.json(edge, duplicate ? 200 : 201)
  })
  .get('/edges/:id', async (c) => c.json(await stub(c).edge(callerOf(c), c.req.param('id'))))
  .post('/edges/:id/prune', limitBody(MAX_GRAPH_BODY), async (c) => c.json(await stub(c).prune(callerOf(c), c.req.param('id'), await readJson(c.req.raw))))

export const memory = new Hono<AppEnv>()
  .post('/remember', limitBody(MAX_GRAPH_BODY), async (c) => {
    const { memory: remembered, duplicate } = await stub(c).remember(callerOf(c), await readJson(c.req.raw))
    return c.json(remembered, duplicate ? 200 : 201)
  })
  .post('/recall', limitBody(MAX_GRAPH_BODY), async (c) => c.json(await stub(c).recall(callerOf(c), await readJson(c.req.raw))))
  .post('/forget', limitBody(MAX_GRAPH_BODY), async (c) => c.json(await stub(c).forget(callerOf(c), await readJson(c.req.raw))))
  .get('/pinned', async (c) => c.json({ items: await stub(c).pinned(callerOf(c)) }))

/** The graph this request names: the caller's own, or a claim's it holds (`CLAIM_REQUIRED` otherwise). */
function stub(c: Context<AppEnv>) {
  const { scope } = parseOrThrow(ScopeQuery, { scope: c.req.query('scope') }, 'INVALID_QUERY')
  return c.env.GRAPHS.getByName(graphName(callerOf(c), scope))
}
