/**
 * `POST /v1/dev/token`: the shell's one-click sign-in on a loopback `npm start`.
 * It hands the local dev identity's bearer token (the one `npm run -s token`
 * prints) to a page on this origin, and only where that token would be
 * accepted anyway. Three checks keep other pages in the developer's browser out:
 *
 * - the request must carry `X-Neuron-Dev-Login: 1`: a custom header makes a
 *   cross-origin page's request need a CORS preflight, which this worker never grants;
 * - the host it names (`Host`, and so the URL) must be loopback (`localhost`, 127.0.0.0/8,
 *   `[::1]`): a DNS-rebinding page (`rebind.evil.example` answering 127.0.0.1) is
 *   same-origin with itself, so the header alone does not stop it, but it names its own
 *   host: 403 `DEV_LOGIN_FOREIGN_HOST`;
 * - an `Origin`, when the browser sends one, must be a loopback origin too: 403
 *   `DEV_LOGIN_FOREIGN_ORIGIN` (`npm run token` and curl send none).
 *
 * Deployed (no dev secret, not development) it is 403 `DEV_LOGIN_REFUSED`; a
 * deployment signs in with a bearer JWT from its identity provider instead.
 *
 * @example
 * await fetch('/v1/dev/token', { method: 'POST', headers: { 'x-neuron-dev-login': '1' } }) // 200 { token, expiresAt }
 */
import { NeuronError } from '../../objects/core/errors.ts'
import type { Context } from 'hono'
import type { AppEnv } from '../env.ts'
import { authenticatorFor } from '../gate/authenticate.ts'
import { isLoopbackHost } from '../gate/authenticator.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'

export const DEV_LOGIN_HEADER = 'x-neuron-dev-login'

/**
 * The `/v1/dev` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * DEV_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const DEV_ROUTES = [
  route({
    method: 'post',
    path: '/v1/dev/token',
    operationId: 'devToken',
    summary: 'The local dev identity\'s bearer token, for the shell\'s one-click sign-in: only a local `wrangler dev` to a loopback client naming a loopback host (and, when it sends one, a loopback Origin), with header `X-Neuron-Dev-Login: 1`',
    auth: 'none',
    ok: { 200: 'the token and when it expires (epoch ms)' },
    response: R.DevToken,
    errors: ['DEV_LOGIN_REFUSED', 'DEV_LOGIN_FOREIGN_HOST', 'DEV_LOGIN_FOREIGN_ORIGIN'],
    handler: devToken,
  }),
]

/** The `/v1/dev` router, mounted by worker/neuron.ts: `app.route('/v1/dev', dev)`. */
export const dev = mount('/v1/dev', DEV_ROUTES)

async function devToken(c: Context<AppEnv>): Promise<Response> {
  if (c.req.header(DEV_LOGIN_HEADER) !== '1') throw new NeuronError('DEV_LOGIN_REFUSED', `send "${DEV_LOGIN_HEADER}: 1" from the shell page`, { status: 403 })
  const host = c.req.header('host')
  if (!isLoopbackHost(new URL(c.req.url).hostname) || (host !== undefined && !isLoopbackHost(hostnameOf(`http://${host}`)))) {
    throw new NeuronError('DEV_LOGIN_FOREIGN_HOST', 'the dev identity is handed out only to a request that names a loopback host (localhost, 127.0.0.1, [::1])', { status: 403 })
  }
  const origin = c.req.header('origin')
  if (origin !== undefined && !isLoopbackHost(hostnameOf(origin))) {
    throw new NeuronError('DEV_LOGIN_FOREIGN_ORIGIN', 'the dev identity is handed out only to a page on a loopback origin', { status: 403, details: { origin: origin.slice(0, 200) } })
  }
  return c.json(await authenticatorFor(c.env).devToken(c.req.header('cf-connecting-ip')))
}

/** The host name of a URL, or '' when it is not one (`Origin: null`, a malformed Host). */
function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}
