/** `/v1/me`: the authenticated principal and what it has used. */
import { settled } from '../../objects/core/rpc.ts'
import { callerOf } from '../caller.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'

/**
 * The `/v1/me` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * ME_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const ME_ROUTES = [
  route({
    method: 'get',
    path: '/v1/me',
    operationId: 'getMe',
    summary: 'The authenticated principal and its claims',
    auth: 'bearer',
    ok: { 200: 'the principal' },
    response: R.Me,
    errors: [],
    handler: (c) => {
      const principal = c.get('principal')
      return c.json({ id: callerOf(c).id, issuer: principal.issuer, subject: principal.subject, claims: principal.claims, via: principal.via })
    },
  }),
  route({
    method: 'get',
    path: '/v1/me/usage',
    operationId: 'getUsage',
    summary: "The principal's metered requests and model usage",
    auth: 'bearer',
    ok: { 200: 'totals' },
    response: R.Usage,
    errors: [],
    handler: async (c) => c.json(await settled(c.env.METERS.getByName(callerOf(c).id)).totals()),
  }),
]

/** The `/v1/me` router, mounted by worker/neuron.ts: `app.route('/v1/me', me)`. */
export const me = mount('/v1/me', ME_ROUTES)
