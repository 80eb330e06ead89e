/**
 * `/v1/auth`: the shell's lasting sign-in (docs/shell.md). The shell signs in with any bearer token
 * the gate accepts (`POST /v1/auth/sign-in`) and gets a refresh credential in a cookie that is
 * `HttpOnly`, `SameSite=Strict`, `Secure` (but on a loopback http origin) and sent to
 * `/v1/auth/refresh` only. After a reload it calls `POST /v1/auth/refresh` for a short-lived access
 * token, an ordinary bearer token the gate verifies; every use rotates the credential (sign-ins.ts).
 * `DELETE /v1/auth/refresh` is the sign-out: the sign-in is revoked and the cookie cleared.
 *
 * Authentication stays once at the gate: the refresh path is the only one that reads the cookie, and
 * what it hands out is verified by the gate like any other token. Every call carries
 * `X-Neuron-Shell: 1`, which a cross-origin page cannot send without a preflight this worker never grants.
 *
 * @example
 * await fetch('/v1/auth/sign-in', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-neuron-shell': '1' } })
 * const { token } = await (await fetch('/v1/auth/refresh', { method: 'POST', headers: { 'x-neuron-shell': '1' } })).json()
 */
import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { NeuronError } from '../../objects/core/errors.ts'
import { settled } from '../../objects/core/rpc.ts'
import { sha256Hex } from '../../objects/ledger/hash.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { authenticatorFor } from '../gate/authenticate.ts'
import { isLoopbackHost } from '../gate/authenticator.ts'
import { principalId } from '../gate/principal.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'

export const SHELL_HEADER = 'x-neuron-shell'
export const REFRESH_COOKIE = 'neuron_refresh'
export const REFRESH_PATH = '/v1/auth/refresh'

const SIGN_IN_ERRORS = ['SHELL_HEADER_MISSING']
const REFRESH_ERRORS = ['SHELL_HEADER_MISSING', 'REFRESH_MISSING', 'REFRESH_INVALID', 'REFRESH_EXPIRED', 'REFRESH_REVOKED', 'REFRESH_UNKNOWN', 'REFRESH_REPLAYED', 'DEV_TOKEN_REFUSED']

/**
 * The `/v1/auth` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * AUTH_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const AUTH_ROUTES = [
  route({
    method: 'post',
    path: '/v1/auth/sign-in',
    operationId: 'signIn',
    summary: 'Starts a lasting shell sign-in for the bearer token\'s principal: sets the refresh cookie (HttpOnly, SameSite=Strict, path /v1/auth/refresh); needs `X-Neuron-Shell: 1`',
    auth: 'bearer',
    ok: { 200: 'signed in; when the sign-in expires (epoch ms)' },
    response: R.SignedIn,
    errors: SIGN_IN_ERRORS,
    handler: signIn,
  }),
  route({
    method: 'post',
    path: REFRESH_PATH,
    operationId: 'refreshSignIn',
    summary: 'A short-lived access token from the refresh cookie, which is replaced by a new one (rotation); needs `X-Neuron-Shell: 1`',
    auth: 'none',
    ok: { 200: 'the access token, when it expires and when the sign-in does (epoch ms)' },
    response: R.Refreshed,
    errors: REFRESH_ERRORS,
    handler: refresh,
  }),
  route({
    method: 'delete',
    path: REFRESH_PATH,
    operationId: 'signOut',
    summary: 'Signs out: the refresh cookie\'s sign-in is revoked and the cookie cleared (no cookie: nothing to revoke); needs `X-Neuron-Shell: 1`',
    auth: 'none',
    ok: { 200: 'whether a sign-in was revoked' },
    response: R.SignedOut,
    errors: ['SHELL_HEADER_MISSING'],
    handler: signOut,
  }),
]

/** The `/v1/auth` router, mounted by worker/neuron.ts: `app.route('/v1/auth', auth)`. */
export const auth = mount('/v1/auth', AUTH_ROUTES)

function requireHeader(c: Context<AppEnv>) {
  if (c.req.header(SHELL_HEADER) !== '1') throw new NeuronError('SHELL_HEADER_MISSING', `send "${SHELL_HEADER}: 1" from the shell page`, { status: 403 })
}

/** `Secure` but on plain http to a loopback host (a local `wrangler dev`), where a browser would drop it. */
function setRefreshCookie(c: Context<AppEnv>, credential: string, expiresAt: number) {
  const url = new URL(c.req.url)
  setCookie(c, REFRESH_COOKIE, credential, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: url.protocol === 'https:' || !isLoopbackHost(url.hostname),
    path: REFRESH_PATH,
    maxAge: Math.max(0, Math.floor((expiresAt - Date.now()) / 1000)),
  })
}

async function signIn(c: Context<AppEnv>): Promise<Response> {
  requireHeader(c)
  const authenticator = authenticatorFor(c.env)
  const { credential, family, rid, expiresAt } = await authenticator.signIn(c.get('principal'))
  await settled(c.env.CONFIGS.getByName(callerOf(c).id)).issueSignIn(family, sha256Hex(rid), expiresAt)
  setRefreshCookie(c, credential, expiresAt)
  return c.json({ signedIn: true, expiresAt })
}

async function refresh(c: Context<AppEnv>): Promise<Response> {
  requireHeader(c)
  const credential = getCookie(c, REFRESH_COOKIE)
  if (!credential) throw new NeuronError('REFRESH_MISSING', 'no sign-in to renew: sign in', { status: 401 })
  const authenticator = authenticatorFor(c.env)
  const found = await authenticator.refreshed(credential, c.req.header('cf-connecting-ip'))
  const next = crypto.randomUUID()
  const used = await settled(c.env.CONFIGS.getByName(principalId(found.principal))).rotateSignIn(found.family, sha256Hex(found.rid), sha256Hex(next))
  if (used.replayed) throw new NeuronError('REFRESH_REPLAYED', 'a refresh credential was used after it had been replaced: the sign-in is ended, sign in again', { status: 401 })
  if (used.rotated) setRefreshCookie(c, await authenticator.reissued(found, next), found.expiresAt)
  const { token, expiresAt } = await authenticator.shellToken(found.principal, found.expiresAt)
  return c.json({ token, expiresAt, signInExpiresAt: found.expiresAt })
}

async function signOut(c: Context<AppEnv>): Promise<Response> {
  requireHeader(c)
  const credential = getCookie(c, REFRESH_COOKIE)
  let revoked = false
  if (credential) {
    // An expired or forged credential has nothing to revoke; the cookie is cleared either way.
    const found = await authenticatorFor(c.env).refreshed(credential, c.req.header('cf-connecting-ip')).catch(() => null)
    if (found) revoked = (await settled(c.env.CONFIGS.getByName(principalId(found.principal))).revokeSignIn(found.family, 'signed out')).revoked
  }
  deleteCookie(c, REFRESH_COOKIE, { path: REFRESH_PATH })
  return c.json({ revoked })
}
