/**
 * The network gate: an app backend reaches only origins its person granted
 * (`backend_calls.*`), through the kernel's outbound gate. A loopback fake
 * origin (the fake vendor, real HTTP on 127.0.0.1) stands in for the internet.
 */
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { loaderHost } from '../../objects/apps/loader.ts'
import { api, postJson } from '../support/api.ts'
import { pkg, PROBE_METHODS, PROBE_MODULE, SOCKET_MODULE } from '../fixtures/apps/packages.ts'
import { fakeVendor } from '../llm/fake-vendor.ts'
import { errorOf, installed, output, person, warm } from './support.ts'

const PONG = { status: 200, headers: { 'content-type': 'text/plain' }, body: 'pong' }

describe('outbound grants', () => {
  beforeAll(() => warm(), 60_000)

  it('ungranted is refused with a code, granted is reached, revoked is refused again', async () => {
    const ada = person('ada')
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    const vendor = await fakeVendor([PONG, PONG])
    const origin = new URL(vendor.url).origin

    const refused = await output('probe', 'reach', { url: `${vendor.url}/data` }, ada)
    expect(refused).toMatchObject({ status: 403, gate: 'refused' })
    expect(JSON.parse(refused.body as string)).toMatchObject({ error: { code: 'ORIGIN_NOT_GRANTED', details: { origin } } })
    expect(await vendor.requests()).toEqual([])

    const granted = await postJson('/v1/apps/installs/probe/backend-calls', { origin: `${vendor.url}/any/path?q=1` }, ada)
    expect(await granted.json()).toMatchObject({ origin, grantedAt: expect.any(String) })
    expect(await (await api('/v1/apps/installs/probe/backend-calls', {}, ada)).json()).toEqual({ items: [expect.objectContaining({ origin })] })
    expect(await output('probe', 'reach', { url: `${vendor.url}/data` }, ada)).toEqual({ status: 200, gate: null, body: 'pong' })
    expect(await vendor.requests()).toEqual([expect.objectContaining({ method: 'POST', path: '/data', body: 'hello' })])

    const revoked = await api(`/v1/apps/installs/probe/backend-calls?origin=${encodeURIComponent(origin)}`, { method: 'DELETE' }, ada)
    expect(await revoked.json()).toEqual({ origin, revoked: true })
    expect(await output('probe', 'reach', { url: `${vendor.url}/data` }, ada)).toMatchObject({ status: 403, gate: 'refused' })
    expect(await vendor.requests()).toHaveLength(1)
    expect(await (await api('/v1/apps/installs/probe/backend-calls', {}, ada)).json()).toEqual({ items: [] })
  })

  it("a grant is per person and app: another person's installation of the same app is still refused", async () => {
    const ada = person('ada')
    const bob = person('bob')
    const probe = pkg('probe', PROBE_MODULE, PROBE_METHODS)
    await installed(probe, ada)
    await installed(probe, bob)
    const vendor = await fakeVendor([PONG])
    await postJson('/v1/apps/installs/probe/backend-calls', { origin: vendor.url }, ada)
    expect(await output('probe', 'reach', { url: vendor.url }, bob)).toMatchObject({ status: 403, gate: 'refused' })
    expect(await output('probe', 'reach', { url: vendor.url }, ada)).toMatchObject({ status: 200, body: 'pong' })
  })

  it('a granted origin cannot redirect the backend to an ungranted one', async () => {
    const ada = person('ada')
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    // Another origin on the same loopback server: the same port under the host name `localhost`.
    const elsewhere = await fakeVendor([PONG])
    const target = new URL(elsewhere.url)
    target.hostname = 'localhost'
    const redirecting = await fakeVendor([{ status: 307, headers: { location: `${target.href}/stolen` }, body: '' }])
    await postJson('/v1/apps/installs/probe/backend-calls', { origin: redirecting.url }, ada)
    const answer = await output('probe', 'reach', { url: `${redirecting.url}/start` }, ada)
    expect(answer).toMatchObject({ status: 403, gate: 'refused' })
    expect(await elsewhere.requests()).toEqual([])
    expect(await redirecting.requests()).toHaveLength(1)
  })

  it('raw TCP sockets do not get around the gate, even to a granted origin', async () => {
    const ada = person('ada')
    await installed(pkg('sockets', SOCKET_MODULE, { socket: { kind: 'update' } }), ada)
    const vendor = await fakeVendor([PONG])
    await postJson('/v1/apps/installs/sockets/backend-calls', { origin: vendor.url }, ada)
    const url = new URL(vendor.url)
    const answer = await output('sockets', 'socket', { host: url.host, key: url.pathname.slice(1) }, ada)
    expect(answer.thrown).toEqual(expect.any(String))
    expect(await vendor.requests()).toEqual([])
  })

  it('bad grants are coded: not an http(s) origin, an app not installed', async () => {
    const ada = person('ada')
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    for (const origin of ['ftp://example.com', 'not a url', 'https://user:pw@example.com']) {
      expect(await errorOf(await postJson('/v1/apps/installs/probe/backend-calls', { origin }, ada)), origin).toMatchObject({ code: 'INVALID_ORIGIN' })
    }
    expect(await errorOf(await postJson('/v1/apps/installs/absent/backend-calls', { origin: 'https://example.com' }, ada))).toMatchObject({ code: 'APP_NOT_INSTALLED' })
  })

  it('the outbound policy holds whatever is granted: a private or reserved origin is neither granted nor reached', async () => {
    const ada = person('ada')
    await installed(pkg('probe', PROBE_MODULE, PROBE_METHODS), ada)
    for (const origin of ['http://10.0.0.1', 'http://169.254.169.254', 'http://[::ffff:127.0.0.1]:8787', 'http://0.0.0.0:8787']) {
      expect(await errorOf(await postJson('/v1/apps/installs/probe/backend-calls', { origin }, ada)), origin).toMatchObject({ code: 'URL_REFUSED' })
      const reached = await output('probe', 'reach', { url: `${origin}/latest/meta-data` }, ada)
      expect(reached, origin).toMatchObject({ status: 403, gate: 'refused' })
      expect(JSON.parse(reached.body as string), origin).toMatchObject({ error: { code: 'URL_REFUSED' } })
    }
    expect(await (await api('/v1/apps/installs/probe/backend-calls', {}, ada)).json()).toEqual({ items: [] })
  })

  it('baseline: with no gate handed to the call, a backend cannot fetch at all, not even with the fetch it kept from load time', async () => {
    const vendor = await fakeVendor([PONG])
    const module = `const raw = globalThis.fetch
export default {
  async reach(input) { try { await fetch(input.url); return { reached: true } } catch (error) { return { thrown: String(error.message) } } },
  async reachRaw(input) { try { await raw(input.url); return { reached: true } } catch (error) { return { thrown: String(error.message) } } },
}`
    const host = loaderHost(env.LOADER)
    const id = `baseline-${crypto.randomUUID()}`
    for (const method of ['reach', 'reachRaw']) {
      const answer = (await host.invoke(id, module, { method, input: { url: vendor.url }, deadlineMs: 10_000 }, null, null)) as { thrown?: string }
      expect(answer.thrown, method).toEqual(expect.any(String))
    }
    expect(await vendor.requests()).toEqual([])
  })
})
