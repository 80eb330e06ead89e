/**
 * Bodies over a route's limit (3, 16 and 64 MiB against the prompt's 1 MiB), sent chunked (no
 * content-length: a client that does not know their size) and with their content-length, against
 * a real `wrangler dev`: the client gets the 413
 * `PAYLOAD_TOO_LARGE` answer (not a reset, not the dev proxy's 500), and the connection it came
 * on serves the next request.
 */
import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

interface Answer {
  status: number
  type: string
  body: string
}

/** POSTs `bytes` in 64 KiB chunks on `agent`'s connection: `transfer-encoding: chunked`, or with its `content-length`. */
function send(url: string, token: string, bytes: number, agent: Agent, declared: boolean): Promise<Answer | { error: string }> {
  return new Promise((resolve) => {
    const length = Math.ceil(bytes / (64 * 1024)) * 64 * 1024
    const framing = declared ? { 'content-length': String(length) } : { 'transfer-encoding': 'chunked' }
    const req = request(url, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...framing } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }))
      res.on('error', (error) => resolve({ error: String(error) }))
    })
    req.on('error', (error) => resolve({ error: String(error) }))
    const chunk = Buffer.alloc(64 * 1024, 'a')
    let sent = 0
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length
        if (!req.write(sent === chunk.length ? Buffer.concat([Buffer.from('{"text":"'), chunk.subarray(9)]) : chunk)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  })
}

function small(url: string, token: string, agent: Agent): Promise<Answer | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }))
    })
    req.on('error', (error) => resolve({ error: String(error) }))
    req.end()
  })
}

const SIZES = [3, 16, 64].map((m) => m * 1024 * 1024)

describe('chunked bodies over the limit', () => {
  let dev: Wrangler
  let token: string
  beforeAll(async () => {
    dev = await startWrangler()
    token = await devToken('big-bodies')
    await fetch(`${dev.url}/v1/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ id: 'big' }) })
  })
  afterAll(() => dev?.stop())

  it('answer 413 PAYLOAD_TOO_LARGE as JSON, and the same connection serves the next request (12 rounds, chunked and declared)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const outcomes: string[] = []
    for (let round = 0; round < 12; round++) {
      const big = await send(`${dev.url}/v1/sessions/big/prompt`, token, SIZES[round % SIZES.length]!, agent, round % 2 === 1)
      const next = await small(`${dev.url}/v1/sessions/big`, token, agent)
      outcomes.push(`${'error' in big ? big.error : `${big.status} ${big.type.split(';')[0]} ${/"code":"(\w+)"/.exec(big.body)?.[1]}`} | ${'error' in next ? next.error : next.status}`)
    }
    agent.destroy()
    console.log(outcomes.join('\n'))
    expect(outcomes).toEqual(Array(12).fill('413 application/json PAYLOAD_TOO_LARGE | 200'))
  })
})
