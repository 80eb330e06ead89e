/** The codes the app routes answer are the codes their declarations document. */
import { beforeAll, describe, expect, it } from 'vitest'
import { ROUTES } from '../../worker/openapi/routes.ts'
import { api } from '../support/api.ts'
import { COUNTER } from '../fixtures/apps/packages.ts'
import { errorOf, installed, person, warm } from './support.ts'

function routeOf(method: string, path: string) {
  const route = ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path))
  if (!route) throw new Error(`no route for ${method} ${path}`)
  return route
}

describe('app route codes', () => {
  beforeAll(() => warm(), 60_000)

  it('every code observed is documented on its route', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    const json = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const cases: [string, string, RequestInit, string][] = [
      ['post', '/v1/apps/packages', json('POST', { ...COUNTER, manifest: { ...COUNTER.manifest, entry: 'x.html' } }), 'MISSING_ENTRY'],
      ['post', '/v1/apps/packages', json('POST', { ...COUNTER, backend: { module: 'export default {' } }), 'BACKEND_LOAD_FAILED'],
      // the runtime's error for a module past its CPU limit at startup (thrown by hand: local workerd enforces none)
      ['post', '/v1/apps/packages', json('POST', { ...COUNTER, backend: { module: "throw new Error('Script startup exceeded CPU limit.')\nexport default {}" } }), 'BACKEND_LIMIT'],
      ['get', `/v1/apps/packages/${'0'.repeat(64)}`, {}, 'PACKAGE_NOT_FOUND'],
      ['post', '/v1/apps/installs', json('POST', { package: '0'.repeat(64) }), 'PACKAGE_NOT_FOUND'],
      ['get', '/v1/apps/installs/absent', {}, 'APP_NOT_INSTALLED'],
      ['get', '/v1/apps/installs/Not%20An%20App', {}, 'INVALID_REQUEST'],
      ['put', '/v1/apps/installs/counter', json('PUT', { package: '0'.repeat(64) }), 'PACKAGE_NOT_FOUND'],
      ['delete', '/v1/apps/installs/absent', { method: 'DELETE' }, 'APP_NOT_INSTALLED'],
      ['post', '/v1/apps/installs/counter/call', json('POST', { method: 'count', input: { extra: 1 } }), 'INVALID_INPUT'],
      ['post', '/v1/apps/installs/counter/call', json('POST', { method: 'count', input: {}, kind: 'update' }), 'METHOD_KIND_MISMATCH'],
      ['post', '/v1/apps/installs/counter/call', json('POST', { method: 'nope', input: {} }), 'UNKNOWN_METHOD'],
      ['post', '/v1/apps/installs/counter/backend-calls', json('POST', { origin: 'ftp://x' }), 'INVALID_ORIGIN'],
      ['post', '/v1/apps/installs/counter/backend-calls', json('POST', { origin: 'http://10.0.0.1' }), 'URL_REFUSED'],
      ['delete', '/v1/apps/installs/counter/backend-calls', { method: 'DELETE' }, 'INVALID_QUERY'],
      ['post', '/v1/apps/installs/counter/connections/mail/reveal', { method: 'POST' }, 'CLAIM_REQUIRED'],
      ['post', '/v1/apps/installs/counter/vetkeys', json('POST', { derivationPath: 'p' }), 'INVALID_REQUEST'],
    ]
    for (const [method, path, init, code] of cases) {
      const got = (await errorOf(await api(path, init, ada))).code
      expect(got, `${method} ${path}`).toBe(code)
      expect(routeOf(method, path.split('?')[0]!).errors, `${method} ${path} documents ${code}`).toContain(code)
    }
  })
})
