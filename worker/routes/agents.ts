/**
 * `/v1/agents`: the agent profiles the caller's sessions may run, each with where it came from:
 * Neuron's own (`builtin`), the deployment's code (`deployment`), the caller's config document
 * (`config`), laid over each other in that order (objects/agents/resolve.ts).
 */
import { agentsOf } from '../../objects/agents/resolve.ts'
import { configOf } from '../../objects/config/current.ts'
import { callerOf } from '../caller.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'

/**
 * The `/v1/agents` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * AGENT_ROUTES.map((r) => `${r.method} ${r.path}`) // ['get /v1/agents']
 */
export const AGENT_ROUTES = [
  route({
    method: 'get',
    path: '/v1/agents',
    operationId: 'listAgents',
    summary: "The agent profiles the caller sees, by name: Neuron's own, the deployment's and the caller's config's, merged field by field (config over deployment over builtin), each with its source",
    auth: 'bearer',
    ok: { 200: 'the profiles' },
    response: R.AgentListings,
    errors: [],
    handler: async (c) => c.json({ items: [...agentsOf(c.get('extensions').agents, await configOf(c.env, callerOf(c).id)).values()] }),
  }),
]

/** The `/v1/agents` router, mounted by worker/neuron.ts: `app.route('/v1/agents', agents)`. */
export const agents = mount('/v1/agents', AGENT_ROUTES)
