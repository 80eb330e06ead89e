/**
 * App backends under a real `wrangler dev` (the README's path): the sample
 * counter the shell build writes (dist/shell/packages/counter.json) installs and answers; its state survives a
 * restart of the process; the outbound gate refuses an ungranted origin and
 * passes a granted one (a loopback HTTP server on this machine).
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

/** The README's sample, as `wrangler dev` (its build step) writes it. */
const counter = () => readFileSync(new URL('../../dist/shell/packages/counter.json', import.meta.url), 'utf8')
const PROBE = {
  manifest: { app: 'probe', version: '1', name: 'Probe', entry: 'index.html' },
  files: { 'index.html': '<p>probe</p>' },
  backend: { module: "export default { async reach(input) { const res = await fetch(input.url); return { status: res.status, body: await res.text() } } }" },
  interface: { methods: { reach: { kind: 'update', input: { type: 'object' }, output: { type: 'object' } } } },
}

describe('app backends (real wrangler dev)', () => {
  let dev: Wrangler | undefined
  let origin: Server | undefined
  const hits: string[] = []
  afterAll(async () => {
    await dev?.stop()
    origin?.close()
  })

  it('install the README sample, call it, restart, call again; the gate holds outbound to grants', async () => {
    origin = createServer((req, res) => {
      hits.push(req.url ?? '')
      res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from the origin')
    })
    await new Promise<void>((resolve) => origin!.listen(0, '127.0.0.1', resolve))
    const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
    const persistTo = tempPersistDir()
    dev = await startWrangler({ persistTo })
    const auth = { authorization: `Bearer ${await devToken('apps-user')}`, 'content-type': 'application/json' }
    const post = (path: string, body: string) => fetch(`${dev!.url}${path}`, { method: 'POST', headers: auth, body })

    const stored = await post('/v1/apps/packages', counter())
    expect(stored.status).toBe(201)
    const { hash } = (await stored.json()) as { hash: string }
    expect((await post('/v1/apps/installs', JSON.stringify({ package: hash }))).status).toBe(201)
    const increment = await post('/v1/apps/installs/counter/call', JSON.stringify({ method: 'increment', input: { by: 7 } }))
    expect(await increment.json()).toEqual({ output: { count: 7 } })

    await dev.stop()
    dev = await startWrangler({ persistTo })
    const count = await post('/v1/apps/installs/counter/call', JSON.stringify({ method: 'count', input: {} }))
    expect(await count.json()).toEqual({ output: { count: 7 } })

    const probe = await post('/v1/apps/packages', JSON.stringify(PROBE))
    expect((await post('/v1/apps/installs', JSON.stringify({ package: ((await probe.json()) as { hash: string }).hash }))).status).toBe(201)
    const refused = (await (await post('/v1/apps/installs/probe/call', JSON.stringify({ method: 'reach', input: { url: `${originUrl}/a` } }))).json()) as { output: { status: number; body: string } }
    expect(refused.output.status).toBe(403)
    expect(JSON.parse(refused.output.body)).toMatchObject({ error: { code: 'ORIGIN_NOT_GRANTED' } })
    expect(hits).toEqual([])
    expect((await post('/v1/apps/installs/probe/backend-calls', JSON.stringify({ origin: originUrl }))).status).toBe(200)
    const reached = await post('/v1/apps/installs/probe/call', JSON.stringify({ method: 'reach', input: { url: `${originUrl}/b` } }))
    expect(await reached.json()).toEqual({ output: { status: 200, body: 'hello from the origin' } })
    expect(hits).toEqual(['/b'])
  })
})
