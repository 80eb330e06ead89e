/**
 * The shell's lasting sign-in: a bearer token signs in once and gets a refresh cookie scoped to the
 * refresh route; the refresh route hands out short-lived access tokens the gate verifies, rotating
 * the credential on every use; sign-out revokes it. Each refusal has its code and writes nothing,
 * but a replayed credential, which ends the sign-in it belonged to.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { mintRefresh } from '../../worker/gate/shell-tokens.ts'
import { DEV_ISSUER } from '../../worker/gate/auth-config.ts'
import { idOf, token } from '../support/auth.ts'

const LOOPBACK = { 'cf-connecting-ip': '127.0.0.1' }
const SHELL = { 'x-neuron-shell': '1' }
const at = (path: string, init: { method?: string; headers?: Record<string, string> } = {}, origin = 'http://127.0.0.1:8787') => exports.default.fetch(`${origin}${path}`, { method: init.method ?? 'POST', headers: { ...LOOPBACK, ...init.headers } })
const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code
/** The cookie a response sets (its value and attributes), or null. */
const setCookie = (res: Response) => res.headers.get('set-cookie')
const valueOf = (cookie: string | null) => /neuron_refresh=([^;]*)/.exec(cookie ?? '')?.[1] ?? ''
const withCookie = (value: string) => ({ ...SHELL, cookie: `neuron_refresh=${value}` })
/** Rows in a principal's ConfigObject log: what a refusal must leave unchanged. */
const rows = (id: string) => runInDurableObject(env.CONFIGS.getByName(id), (_o, state) => Number(state.storage.sql.exec('select count(*) as n from log').one().n))

async function devSignIn(origin?: string): Promise<string> {
  const dev = (await (await at('/v1/dev/token', { headers: { 'x-neuron-dev-login': '1' } })).json()) as { token: string }
  const res = await at('/v1/auth/sign-in', { headers: { ...SHELL, authorization: `Bearer ${dev.token}` } }, origin)
  expect(res.status).toBe(200)
  return setCookie(res)!
}

describe('/v1/auth: a sign-in that lasts', () => {
  it('signs in with a cookie for the refresh route only, HttpOnly and SameSite=Strict (Secure but on loopback http)', async () => {
    const cookie = await devSignIn()
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    expect(cookie).toMatch(/Path=\/v1\/auth\/refresh(;|$)/)
    expect(cookie).not.toMatch(/Secure/)
    expect(await devSignIn('https://neuron.example')).toMatch(/Secure/)
  }, 30_000) // the file's first requests start the worker and its objects: seconds on a loaded machine

  it('refreshes to an access token the gate verifies, rotating the credential; the one just replaced is honoured once more without rotating', async () => {
    const first = valueOf(await devSignIn())
    const res = await at('/v1/auth/refresh', { headers: withCookie(first) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { token: string; expiresAt: number; signInExpiresAt: number }
    expect(body.expiresAt).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1000)
    expect(body.signInExpiresAt).toBeGreaterThan(Date.now() + 29 * 24 * 3600_000)
    const second = valueOf(setCookie(res))
    expect(second).not.toBe('')
    expect(second).not.toBe(first)
    const me = await at('/v1/me', { method: 'GET', headers: { authorization: `Bearer ${body.token}` } })
    expect(await me.json()).toMatchObject({ id: idOf('dev', DEV_ISSUER), subject: 'dev', via: 'dev' })
    // A second tab reloading with the same cookie: a token, no new cookie (the jar keeps the first tab's).
    const again = await at('/v1/auth/refresh', { headers: withCookie(first) })
    expect(again.status).toBe(200)
    expect(setCookie(again)).toBeNull()
    // The dev identity is renewed only for a loopback client.
    const away = await exports.default.fetch('http://127.0.0.1:8787/v1/auth/refresh', { method: 'POST', headers: { ...withCookie(second), 'cf-connecting-ip': '192.0.2.7' } })
    expect(away.status).toBe(401)
    expect(await codeOf(away)).toBe('DEV_TOKEN_REFUSED')
  })

  it('a deployment identity is renewed as a shell token for the same principal, claims and all', async () => {
    const signedIn = await at('/v1/auth/sign-in', { headers: { ...SHELL, authorization: `Bearer ${await token({ sub: 'grace', claims: ['org:acme'] })}` } })
    expect(signedIn.status).toBe(200)
    const res = await exports.default.fetch('https://neuron.example/v1/auth/refresh', { method: 'POST', headers: { ...withCookie(valueOf(setCookie(signedIn))), 'cf-connecting-ip': '192.0.2.7' } })
    expect(res.status).toBe(200)
    const { token: access } = (await res.json()) as { token: string }
    const me = await exports.default.fetch('https://neuron.example/v1/me', { headers: { authorization: `Bearer ${access}`, 'cf-connecting-ip': '192.0.2.7' } })
    expect(await me.json()).toMatchObject({ id: idOf('grace'), claims: ['org:acme'], via: 'shell' })
  })

  it('a credential used after it was replaced twice is a replay: the sign-in ends, its newest credential too', async () => {
    const c1 = valueOf(await devSignIn())
    const c2 = valueOf(setCookie(await at('/v1/auth/refresh', { headers: withCookie(c1) })))
    const c3 = valueOf(setCookie(await at('/v1/auth/refresh', { headers: withCookie(c2) })))
    expect(new Set([c1, c2, c3]).size).toBe(3)
    const replay = await at('/v1/auth/refresh', { headers: withCookie(c1) })
    expect(replay.status).toBe(401)
    expect(await codeOf(replay)).toBe('REFRESH_REPLAYED')
    const newest = await at('/v1/auth/refresh', { headers: withCookie(c3) })
    expect(newest.status).toBe(401)
    expect(await codeOf(newest)).toBe('REFRESH_REVOKED')
  })

  it('signing out revokes the sign-in and clears the cookie; the revoked credential is refused', async () => {
    const c1 = valueOf(await devSignIn())
    const out = await at('/v1/auth/refresh', { method: 'DELETE', headers: withCookie(c1) })
    expect(await out.json()).toEqual({ revoked: true })
    expect(setCookie(out)).toMatch(/neuron_refresh=;.*Max-Age=0/)
    const id = idOf('dev', DEV_ISSUER)
    const before = await rows(id)
    const res = await at('/v1/auth/refresh', { headers: withCookie(c1) })
    expect(res.status).toBe(401)
    expect(await codeOf(res)).toBe('REFRESH_REVOKED')
    expect(await rows(id)).toBe(before)
    expect(await (await at('/v1/auth/refresh', { method: 'DELETE', headers: withCookie(c1) })).json()).toEqual({ revoked: false })
  })

  it('refuses a missing, expired, forged or unknown credential and a call without the shell header, writing nothing', async () => {
    const id = idOf('dev', DEV_ISSUER)
    await devSignIn() // the object exists, so a count is of something
    const before = await rows(id)
    const now = Math.floor(Date.now() / 1000)
    const principal = { issuer: DEV_ISSUER, subject: 'dev', claims: [] }
    const cases: [Record<string, string>, number, string][] = [
      [SHELL, 401, 'REFRESH_MISSING'],
      [withCookie(await mintRefresh(env.TICKET_SECRET!, principal, crypto.randomUUID(), 'r', now - 100, now - 10)), 401, 'REFRESH_EXPIRED'],
      [withCookie(await mintRefresh('not-the-secret', principal, crypto.randomUUID(), 'r', now, now + 60)), 401, 'REFRESH_INVALID'],
      [withCookie(await token()), 401, 'REFRESH_INVALID'],
      [withCookie(await mintRefresh(env.TICKET_SECRET!, principal, crypto.randomUUID(), 'r', now, now + 60)), 401, 'REFRESH_UNKNOWN'],
      [{ cookie: 'neuron_refresh=x' }, 403, 'SHELL_HEADER_MISSING'],
    ]
    for (const [headers, status, code] of cases) {
      const res = await at('/v1/auth/refresh', { headers })
      expect([res.status, await codeOf(res)]).toEqual([status, code])
    }
    const noHeader = await at('/v1/auth/sign-in', { headers: { authorization: `Bearer ${await token()}` } })
    expect([noHeader.status, await codeOf(noHeader)]).toEqual([403, 'SHELL_HEADER_MISSING'])
    expect(await rows(id)).toBe(before)
    expect(await rows(idOf('ada'))).toBe(0)
  })
})
