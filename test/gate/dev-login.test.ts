/**
 * The shell's one-click sign-in: the local dev identity's token is handed out only where a dev
 * token is accepted anyway (development, a dev secret, a loopback client) and only to a request
 * carrying the header a cross-origin page could not send without a preflight. A page that rebinds
 * its own name to 127.0.0.1 is same-origin with itself, so the header alone does not stop it: the
 * request must also name a loopback host, and any `Origin` it carries must be a loopback one.
 */
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'

const login = (headers: Record<string, string | undefined>) => exports.default.fetch('http://127.0.0.1:8787/v1/dev/token', { method: 'POST', headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)) })

describe('POST /v1/dev/token', () => {
  it('gives a loopback client the dev identity, which then authenticates', async () => {
    const res = await login({ 'x-neuron-dev-login': '1', 'cf-connecting-ip': '127.0.0.1' })
    expect(res.status).toBe(200)
    const { token, expiresAt } = (await res.json()) as { token: string; expiresAt: number }
    expect(expiresAt).toBeGreaterThan(Date.now() + 11 * 3600_000)
    const me = await exports.default.fetch('http://127.0.0.1:8787/v1/me', { headers: { authorization: `Bearer ${token}`, 'cf-connecting-ip': '127.0.0.1' } })
    expect(await me.json()).toMatchObject({ subject: 'dev', via: 'dev' })
  }, 30_000) // the file's first requests start the worker and the meter object: seconds on a loaded machine

  it('refuses a client off loopback, and a request without the header (DEV_LOGIN_REFUSED)', async () => {
    for (const headers of [{ 'x-neuron-dev-login': '1', 'cf-connecting-ip': '192.0.2.7' }, { 'x-neuron-dev-login': '1' }, { 'cf-connecting-ip': '127.0.0.1' }]) {
      const res = await login(headers)
      expect(res.status).toBe(403)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('DEV_LOGIN_REFUSED')
    }
  })

  it('refuses a rebound name and a foreign Origin from a loopback client, and keeps the loopback names working', async () => {
    const at = (url: string, headers: Record<string, string> = {}) =>
      exports.default.fetch(url, { method: 'POST', headers: { 'x-neuron-dev-login': '1', 'cf-connecting-ip': '127.0.0.1', ...headers } })
    const refused: [Response, string][] = [
      [await at('http://rebind.evil.example:8787/v1/dev/token'), 'DEV_LOGIN_FOREIGN_HOST'],
      [await at('http://127.0.0.1:8787/v1/dev/token', { host: 'rebind.evil.example:8787' }), 'DEV_LOGIN_FOREIGN_HOST'],
      [await at('http://127.0.0.1:8787/v1/dev/token', { origin: 'http://rebind.evil.example:8787' }), 'DEV_LOGIN_FOREIGN_ORIGIN'],
      [await at('http://127.0.0.1:8787/v1/dev/token', { origin: 'null' }), 'DEV_LOGIN_FOREIGN_ORIGIN'],
      [await at('http://localhost.evil.example:8787/v1/dev/token', { origin: 'http://localhost:8787' }), 'DEV_LOGIN_FOREIGN_HOST'],
    ]
    for (const [res, code] of refused) {
      expect(res.status).toBe(403)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code)
    }
    for (const [url, origin] of [
      ['http://127.0.0.1:8787/v1/dev/token', 'http://127.0.0.1:8787'],
      ['http://localhost:8787/v1/dev/token', 'http://localhost:8787'],
      ['http://[::1]:8787/v1/dev/token', undefined],
    ] as const) {
      const res = await at(url, origin ? { origin } : {})
      expect(res.status).toBe(200)
    }
  })
})
