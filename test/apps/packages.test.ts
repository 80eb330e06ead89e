/**
 * Bad packages get clear codes and store nothing; good packages are
 * content-addressed and immutable (the same bytes are the same version).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_BACKEND_BYTES, MAX_PACKAGE_BYTES } from '../../objects/core/limits.ts'
import { api, postJson } from '../support/api.ts'
import { COUNTER, pkg } from '../fixtures/apps/packages.ts'
import { errorOf, person, upload, warm } from './support.ts'

const withMethods = (methods: Record<string, unknown>) => ({ ...COUNTER, interface: { methods } })
const method = (input: object, output: object = { type: 'object' }) => ({ kind: 'query', input, output })

describe('app packages', () => {
  beforeAll(() => warm(), 60_000)

  it('the same bytes are the same version: a re-upload is a 200 duplicate, and the package reads back', async () => {
    const ada = person('ada')
    const first = await upload(COUNTER, ada)
    expect(first.status).toBe(201)
    const stored = (await first.json()) as { hash: string; size: number }
    expect(stored).toMatchObject({ app: 'counter', version: '1.0.0', hash: expect.stringMatching(/^[0-9a-f]{64}$/), duplicate: false })
    // Key order does not matter: the id is over the canonical form.
    const reordered = { interface: COUNTER.interface, backend: COUNTER.backend, files: COUNTER.files, manifest: COUNTER.manifest }
    const again = await upload(reordered, ada)
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ hash: stored.hash, duplicate: true })
    expect(await (await api(`/v1/apps/packages/${stored.hash}`, {}, ada)).json()).toEqual(COUNTER)
    expect(await errorOf(await api(`/v1/apps/packages/${stored.hash}`, {}, person('bob')))).toMatchObject({ code: 'PACKAGE_NOT_FOUND' })
  })

  it('bad packages: a table of codes, and nothing is stored or installed', async () => {
    const ada = person('ada')
    const big = 'x'.repeat(MAX_PACKAGE_BYTES + 128 * 1024)
    const table: [string, unknown, number, string, Record<string, unknown>?][] = [
      ['not an object', 'hello', 400, 'INVALID_PACKAGE'],
      ['no manifest', { files: {} }, 400, 'INVALID_PACKAGE'],
      ['a bad app id', { ...COUNTER, manifest: { ...COUNTER.manifest, app: 'Bad App' } }, 400, 'INVALID_PACKAGE'],
      ['a path with ..', { ...COUNTER, files: { '../escape.html': '' } }, 400, 'INVALID_PACKAGE'],
      ['methods without a backend', { ...COUNTER, backend: undefined }, 400, 'INVALID_PACKAGE'],
      ['a missing entry', { ...COUNTER, manifest: { ...COUNTER.manifest, entry: 'main.html' } }, 400, 'MISSING_ENTRY', { entry: 'main.html' }],
      ['an oversize body', { ...COUNTER, files: { 'index.html': big } }, 413, 'PAYLOAD_TOO_LARGE'],
      ['an oversize package', { ...COUNTER, files: { 'index.html': 'x'.repeat(MAX_PACKAGE_BYTES - 1000), 'more.html': 'y'.repeat(2000) } }, 413, 'PACKAGE_TOO_LARGE'],
      ['an oversize backend', { ...COUNTER, backend: { module: `//${'x'.repeat(MAX_BACKEND_BYTES)}` } }, 413, 'PACKAGE_TOO_LARGE'],
      ['an input schema that does not compile', withMethods({ count: method({ type: 'string', pattern: '([a-z' }) }), 400, 'INVALID_SCHEMA', { method: 'count', side: 'input' }],
      ['a pattern with no linear-time meaning', withMethods({ count: method({ type: 'string', pattern: '^(?!a)b' }) }), 400, 'INVALID_SCHEMA', { method: 'count', side: 'input' }],
      ['an output $ref that does not resolve', withMethods({ count: method({}, { $ref: '#/$defs/missing' }) }), 400, 'INVALID_SCHEMA', { method: 'count', side: 'output' }],
      ['a backend that does not parse', { ...COUNTER, backend: { module: 'export default {' } }, 422, 'BACKEND_LOAD_FAILED'],
      ['a backend that throws while loading', { ...COUNTER, backend: { module: 'throw new Error("boom"); export default {}' } }, 422, 'BACKEND_LOAD_FAILED'],
      ['a backend without a declared method', pkg('probe', 'export default { async count() { return {} } }', { count: { kind: 'query' }, increment: { kind: 'update' } }), 422, 'BACKEND_LOAD_FAILED', { missing: ['increment'] }],
      ['a backend whose export is not an object', { ...COUNTER, backend: { module: 'export default 42' } }, 422, 'BACKEND_LOAD_FAILED', { missing: ['count', 'increment'] }],
    ]
    for (const [what, body, status, code, details] of table) {
      const res = await upload(body, ada)
      expect(res.status, what).toBe(status)
      const error = await errorOf(res)
      expect(error.code, what).toBe(code)
      if (details) expect(error.details, what).toMatchObject(details)
    }
    // Nothing was stored: the person still has no shelf, so no package and no install.
    expect(await (await api('/v1/apps/installs', {}, ada)).json()).toEqual({ items: [] })
    expect(await errorOf(await postJson('/v1/apps/installs', { package: '0'.repeat(64) }, ada))).toMatchObject({ code: 'PACKAGE_NOT_FOUND' })
    expect(await errorOf(await postJson('/v1/apps/installs', { package: 'nope' }, ada))).toMatchObject({ code: 'INVALID_REQUEST' })
  })
})
