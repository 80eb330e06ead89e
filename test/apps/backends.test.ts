/**
 * App backends on the Worker Loader, through the real gate and routes: a
 * backend loaded from a package answers a query and an update; a query cannot
 * write; input and output are checked against the installed interface; one
 * person's installation cannot read another's state; upgrade and uninstall.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { api, postJson } from '../support/api.ts'
import { COUNTER, pkg, PROBE_METHODS, PROBE_MODULE } from '../fixtures/apps/packages.ts'
import { call, errorOf, warm, installed, output, person, send, upload } from './support.ts'

describe('app backends', () => {
  // The first request of a file pays for the worker's cold start (several seconds under load).
  beforeAll(() => warm(), 60_000)

  it('the README counter answers a query and an update, and its state is a fold that survives', async () => {
    const ada = person('ada')
    const hash = await installed(COUNTER, ada)
    expect(await output('counter', 'count', {}, ada)).toEqual({ count: 0 })
    expect(await output('counter', 'increment', { by: 2 }, ada)).toEqual({ count: 2 })
    expect(await output('counter', 'increment', { by: 3 }, ada)).toEqual({ count: 5 })
    expect(await output('counter', 'count', {}, ada)).toEqual({ count: 5 })
    const listed = (await (await api('/v1/apps/installs', {}, ada)).json()) as { items: unknown[] }
    expect(listed.items).toEqual([expect.objectContaining({ app: 'counter', version: '1.0.0', hash })])
    const schema = (await (await api('/v1/apps/installs/counter', {}, ada)).json()) as { methods: Record<string, { kind: string }> }
    expect(schema).not.toHaveProperty('module')
    expect(schema.methods.count!.kind).toBe('query')
    expect(schema.methods.increment!.kind).toBe('update')
  })

  it('updates run one at a time: concurrent increments lose nothing', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    await Promise.all(Array.from({ length: 10 }, () => output('counter', 'increment', { by: 1 }, ada)))
    expect(await output('counter', 'count', {}, ada)).toEqual({ count: 10 })
  })

  it('a query cannot write: its state has no put, and nothing is appended', async () => {
    const ada = person('ada')
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    const res = await call('probe', 'sneakyWrite', {}, ada)
    expect(res.status).toBe(502)
    expect(await errorOf(res)).toMatchObject({ code: 'BACKEND_FAILED', details: { reason: expect.stringContaining('"put"') } })
    expect(await output('probe', 'read', { key: 'owned' }, ada)).toEqual({ value: null })
    // The same write from an update is allowed.
    expect(await output('probe', 'write', { key: 'owned', value: true }, ada)).toEqual({ ok: true })
    expect(await output('probe', 'read', { key: 'owned' }, ada)).toEqual({ value: true })
  })

  it('input and output are checked against the installed interface, never a caller-supplied schema', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    const bad = await call('counter', 'increment', { by: 'a lot' }, ada)
    expect(bad.status).toBe(400)
    expect(await errorOf(bad)).toMatchObject({ code: 'INVALID_INPUT', details: { issues: expect.arrayContaining([expect.objectContaining({ path: '#/by' })]) } })
    const smuggled = await postJson('/v1/apps/installs/counter/call', { method: 'increment', input: { by: 1 }, schema: {} }, ada)
    expect(await errorOf(smuggled)).toMatchObject({ code: 'INVALID_REQUEST' })
    // The kind the caller expects is checked against the installed interface before anything runs.
    const asQuery = await postJson('/v1/apps/installs/counter/call', { method: 'increment', input: { by: 1 }, kind: 'query' }, ada)
    expect(asQuery.status).toBe(409)
    expect(await errorOf(asQuery)).toMatchObject({ code: 'METHOD_KIND_MISMATCH', details: { method: 'increment', kind: 'update' } })
    expect(await output('counter', 'count', {}, ada)).toEqual({ count: 0 })
    expect((await (await postJson('/v1/apps/installs/counter/call', { method: 'count', input: {}, kind: 'query' }, ada)).json())).toEqual({ output: { count: 0 } })
    for (const name of ['nope', 'constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(await errorOf(await call('counter', name, {}, ada)), name).toMatchObject({ code: 'UNKNOWN_METHOD' })
    }
    // A backend whose answer breaks its declared output schema.
    const liar = pkg('liar', 'export default { async count() { return { count: "many" } } }', { count: { kind: 'query', output: { type: 'object', properties: { count: { type: 'integer' } } } } })
    await installed(liar, ada)
    const lie = await call('liar', 'count', {}, ada)
    expect(lie.status).toBe(502)
    expect(await errorOf(lie)).toMatchObject({ code: 'INVALID_OUTPUT' })
    expect(await output('counter', 'count', {}, ada)).toEqual({ count: 0 })
  })

  it("one person's installation cannot read another's state", async () => {
    const ada = person('ada')
    const bob = person('bob')
    const probe = pkg('probe', PROBE_MODULE, PROBE_METHODS)
    await installed(probe, ada)
    await output('probe', 'write', { key: 'diary', value: 'ada only' }, ada)
    expect(await errorOf(await call('probe', 'read', { key: 'diary' }, bob))).toMatchObject({ code: 'APP_NOT_INSTALLED' })
    // Bob cannot install Ada's package by its hash either: packages are per person.
    const adaHash = ((await (await api('/v1/apps/installs', {}, ada)).json()) as { items: { hash: string }[] }).items[0]!.hash
    expect(await errorOf(await postJson('/v1/apps/installs', { package: adaHash }, bob))).toMatchObject({ code: 'PACKAGE_NOT_FOUND' })
    await installed(probe, bob)
    expect(await output('probe', 'read', { key: 'diary' }, bob)).toEqual({ value: null })
    expect(await output('probe', 'read', { key: 'diary' }, ada)).toEqual({ value: 'ada only' })
  })

  it('upgrade installs a new version over the same state; uninstall stops calls; conflicts are coded', async () => {
    const ada = person('ada')
    const v1 = await installed(COUNTER, ada)
    await output('counter', 'increment', { by: 4 }, ada)
    expect(await errorOf(await postJson('/v1/apps/installs', { package: v1 }, ada))).toMatchObject({ code: 'APP_ALREADY_INSTALLED' })
    const doubled = { ...COUNTER, manifest: { ...COUNTER.manifest, version: '2.0.0' }, backend: { module: COUNTER.backend.module.replace("return { count: (await state.get('count')) ?? 0 }", "return { count: ((await state.get('count')) ?? 0) * 2 }") } }
    const stored = await upload(doubled, ada)
    expect(stored.status).toBe(201)
    const { hash: v2 } = (await stored.json()) as { hash: string }
    expect(await errorOf(await send('PUT', '/v1/apps/installs/counter', { package: v1 }, ada))).toMatchObject({ code: 'SAME_VERSION' })
    const upgraded = await send('PUT', '/v1/apps/installs/counter', { package: v2 }, ada)
    expect(await upgraded.json()).toMatchObject({ app: 'counter', version: '2.0.0', hash: v2, from: '1.0.0' })
    expect(await output('counter', 'count', {}, ada)).toEqual({ count: 8 })
    const other = await upload(pkg('other', PROBE_MODULE, PROBE_METHODS), ada)
    expect(await errorOf(await send('PUT', '/v1/apps/installs/counter', { package: ((await other.json()) as { hash: string }).hash }, ada))).toMatchObject({ code: 'APP_MISMATCH' })
    expect((await api('/v1/apps/installs/counter', { method: 'DELETE' }, ada)).status).toBe(200)
    expect(await errorOf(await call('counter', 'count', {}, ada))).toMatchObject({ code: 'APP_NOT_INSTALLED' })
    expect(await (await api('/v1/apps/installs', {}, ada)).json()).toEqual({ items: [] })
  })
})
