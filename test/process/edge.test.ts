/**
 * The edge against a real `wrangler dev`: what the dev identity's loopback check
 * sees (the client's address, which wrangler dev reports as CF-Connecting-IP),
 * expected failures inside objects not logged as uncaught, and `npm run token`
 * refusing a bad --ttl.
 */
import { spawnSync } from 'node:child_process'
import { request } from 'node:http'
import { networkInterfaces } from 'node:os'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const ROOT = resolve(import.meta.dirname, '../..')

/** This machine's first non-loopback IPv4 address, if it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address

/** A GET with a Host header of our choosing (fetch does not allow setting it). */
function get(address: string, port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: address, port, path, headers }, (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => done({ status: res.statusCode!, body }))
    })
    req.on('error', fail)
    req.end()
  })
}

describe('the edge, against a real wrangler dev listening on every interface', () => {
  let dev: Wrangler
  let auth: string
  beforeAll(async () => {
    dev = await startWrangler({ ip: '0.0.0.0' })
    auth = `Bearer ${await devToken('edge')}`
  })
  afterAll(async () => dev?.stop())

  it('accepts the dev identity from a loopback client only, whatever Host it names', async () => {
    const local = await get('127.0.0.1', dev.port, '/v1/me', { authorization: auth })
    expect(local.status).toBe(200)
    expect(JSON.parse(local.body)).toMatchObject({ id: 'neuron-dev#edge', via: 'dev' })
    if (!lanAddress) return console.warn('no non-loopback interface here: the remote-client half is skipped')
    const remote = await get(lanAddress, dev.port, '/v1/me', { authorization: auth, host: `localhost:${dev.port}` })
    expect(remote.status).toBe(401)
    expect(JSON.parse(remote.body).error.code).toBe('DEV_TOKEN_REFUSED')
  })

  it('does not log an expected 4xx from inside an object as an uncaught error', async () => {
    const headers = { authorization: auth, 'content-type': 'application/json' }
    const base = `http://127.0.0.1:${dev.port}`
    expect((await fetch(`${base}/v1/sessions/never-made`, { headers })).status).toBe(404)
    expect((await fetch(`${base}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ id: 'quiet' }) })).status).toBe(201)
    const bad = await fetch(`${base}/v1/sessions/quiet/prompt`, { method: 'POST', headers, body: JSON.stringify({ text: 5 }) })
    expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([400, 'INVALID_REQUEST'])
    const append = await fetch(`${base}/v1/ledgers/quiet/envelopes`, { method: 'POST', headers, body: JSON.stringify({ topic: 'a.b' }) })
    expect(append.status).toBe(400)
    // wrangler prints its request lines as they finish; give the log a moment to flush.
    await new Promise((r) => setTimeout(r, 500))
    expect(dev.output()).toContain('GET /v1/sessions/never-made 404')
    expect(dev.output()).not.toMatch(/Uncaught|unexpected error/)
  })
})

describe('npm run token', () => {
  it.each(['abc', '0', '-5', '1.5', '1e3', ''])('refuses --ttl %j with a message and exit code 2', (ttl) => {
    const run = spawnSync(process.execPath, ['scripts/dev-token.mjs', `--ttl=${ttl}`], { cwd: ROOT, encoding: 'utf8' })
    expect(run.status).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/--ttl must be a whole number of seconds/)
  })
})
