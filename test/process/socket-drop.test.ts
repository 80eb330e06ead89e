/**
 * A WebSocket client that goes away without a close frame (a laptop lid, a killed tab) reaches the
 * object as close code 1006, which no endpoint may send back. Against a real `wrangler dev`: a raw
 * TCP upgrade to a session's and to an orchestration's socket, then the TCP connection destroyed;
 * the server logs no uncaught error and keeps serving both.
 */
import { randomBytes } from 'node:crypto'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

/** Upgrades `path` to a WebSocket over a raw TCP connection, then destroys it: no close frame. */
async function upgradeAndVanish(port: number, path: string, token: string): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  socket.write(
    [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13', `Authorization: Bearer ${token}`, '', ''].join('\r\n'),
  )
  const head = await new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))))
  socket.destroy()
  return head.split('\r\n')[0]!
}

describe('a WebSocket client that drops without a close frame', () => {
  let dev: Wrangler
  let token: string
  const post = (path: string, body: unknown) => fetch(`${dev.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  beforeAll(async () => {
    dev = await startWrangler()
    token = await devToken('dropper')
  })
  afterAll(() => dev?.stop())

  it('leaves no uncaught "Invalid WebSocket close code" behind, on a session or an orchestration', async () => {
    expect((await post('/v1/sessions', { id: 'dropped' })).status).toBe(201)
    const orchestration = await post('/v1/orchestrations', { id: 'dropped-orch', goal: 'one package', plan: [{ id: 'a', instructions: '/beat execute /tool report {"result":"done"}' }] })
    expect(orchestration.status).toBe(201)
    for (const path of ['/v1/sessions/dropped/ws', '/v1/orchestrations/dropped-orch/ws']) {
      for (let i = 0; i < 3; i++) expect(await upgradeAndVanish(dev.port, path, token)).toBe('HTTP/1.1 101 Switching Protocols')
    }
    // workerd tells the objects of the drop shortly after; the server goes on serving both.
    const deadline = Date.now() + 3000
    while (Date.now() < deadline && !/Invalid WebSocket close code/.test(dev.output())) await new Promise((r) => setTimeout(r, 100))
    expect(dev.output()).not.toMatch(/Invalid WebSocket close code/)
    expect((await post('/v1/sessions/dropped/prompt', { text: 'still here?' })).status).toBe(202)
    expect((await fetch(`${dev.url}/v1/orchestrations/dropped-orch`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
  })
})
