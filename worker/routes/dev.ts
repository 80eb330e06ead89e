/**
 * `POST /v1/dev/token`: the shell's one-click sign-in on a loopback `npm start`.
 * It hands the local dev identity's bearer token (the one `npm run -s token`
 * prints) to a page on this origin, and only where that token would be
 * accepted anyway. The request must carry `X-Neuron-Dev-Login: 1`: a custom
 * header makes a cross-origin page's request need a CORS preflight, which this
 * worker never grants, so another site open in the same browser cannot sign in
 * as the dev identity. Deployed (no dev secret, not development) it is 403
 * `DEV_LOGIN_REFUSED`; a deployment signs in with a bearer JWT from its
 * identity provider instead.
 *
 * @example
 * await fetch('/v1/dev/token', { method: 'POST', headers: { 'x-neuron-dev-login': '1' } }) // 200 { token, expiresAt }
 */
import { Hono } from 'hono'
import { NeuronError } from '../../objects/errors.ts'
import type { AppEnv } from '../env.ts'
import { authenticatorFor } from '../gate/authenticate.ts'

export const DEV_LOGIN_HEADER = 'x-neuron-dev-login'

export const dev = new Hono<AppEnv>().post('/token', async (c) => {
  if (c.req.header(DEV_LOGIN_HEADER) !== '1') throw new NeuronError('DEV_LOGIN_REFUSED', `send "${DEV_LOGIN_HEADER}: 1" from the shell page`, { status: 403 })
  return c.json(await authenticatorFor(c.env).devToken(c.req.header('cf-connecting-ip')))
})
