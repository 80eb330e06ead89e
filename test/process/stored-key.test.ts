/**
 * A principal's stored provider key, end to end in a real `wrangler dev`: the
 * deployment has no Anthropic key, only a base URL pointing at a local vendor
 * that replays a recorded Anthropic stream and records the headers it got.
 * The stored key must reach the vendor's `x-api-key` header and appear nowhere
 * else: not in the history, the config GET, the credentials listing, or the
 * worker's own log output.
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const KEY = 'sk-ant-process-stored-0123456789'
const REPLY = readFileSync(new URL('../fixtures/llm/anthropic/text.sse', import.meta.url), 'utf8')

describe('a stored provider key (real wrangler dev, local vendor)', () => {
  let dev: Wrangler | undefined
  let vendor: Server | undefined
  const keysSeen: string[] = []
  afterAll(async () => {
    await dev?.stop()
    vendor?.close()
  })

  it("reaches the vendor's x-api-key header and nothing else", async () => {
    vendor = createServer(async (req, res) => {
      for await (const _ of req);
      keysSeen.push(String(req.headers['x-api-key']))
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(REPLY)
    })
    await new Promise<void>((resolve) => vendor!.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/v1`
    dev = await startWrangler({ vars: { ANTHROPIC_BASE_URL: base, CREDENTIALS_SECRET: 'process-test-credentials-secret-0123' } })
    const auth = { authorization: `Bearer ${await devToken('keyholder')}`, 'content-type': 'application/json' }
    const call = (path: string, init: RequestInit = {}) => fetch(`${dev!.url}${path}`, { ...init, headers: auth })

    expect((await call('/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'keyed', model: 'anthropic/claude-sonnet-4-5' }) })).status).toBe(400)
    expect((await call('/v1/config/credentials/anthropic', { method: 'PUT', body: JSON.stringify({ apiKey: KEY }) })).status).toBe(200)
    expect((await call('/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'keyed', model: 'anthropic/claude-sonnet-4-5' }) })).status).toBe(201)
    expect((await call('/v1/sessions/keyed/prompt', { method: 'POST', body: JSON.stringify({ text: 'hello' }) })).status).toBe(202)
    const deadline = Date.now() + 60_000
    let history = ''
    while (Date.now() < deadline) {
      history = await (await call('/v1/sessions/keyed/history?limit=1000')).text()
      if (history.includes('session.next.step.ended') && (await (await call('/v1/sessions/keyed')).json() as { status: string }).status === 'idle') break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(history).toContain('session.next.step.ended')
    expect(keysSeen).toContain(KEY)
    expect(history).not.toContain(KEY)
    expect(await (await call('/v1/config')).text()).not.toContain(KEY)
    expect(await (await call('/v1/config/credentials')).text()).not.toContain(KEY)
    expect(dev.output()).not.toContain(KEY)
  })
})
