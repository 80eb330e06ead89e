/**
 * Uploaded tool modules through a real `wrangler dev`, started as `npm start` starts it (module code
 * in the backend sandbox process). A principal uploads a module; the offline local model calls its
 * tools with `/tool` lines; the result is in the session's /history, and the step's offered tool
 * specs name the module version it ran. The module's fetch reaches the origin it lists and is
 * refused (never reaching it) for one it does not; a busy-looping tool is stopped by its bound while
 * another principal's probes keep answering; a throwing tool fails only its own call, and the
 * session's next turn answers.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const obj = { type: 'object' }
const MODULE = (granted: string) => ({
  module: 'probe',
  code: `export default {
  async probe_hello(input) { return { greeting: 'hello ' + input.name } },
  async probe_fetch(input) {
    const res = await fetch(input.url)
    return { status: res.status, gate: res.headers.get('x-neuron-gate'), body: (await res.text()).slice(0, 200) }
  },
  async probe_spin() { for (;;) {} },
  async probe_boom() { throw new Error('the probe broke') },
}`,
  tools: [
    { name: 'probe_hello', description: 'greets', input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, output: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] } },
    { name: 'probe_fetch', description: 'fetches a URL', input: obj, output: obj },
    { name: 'probe_spin', description: 'loops', timeoutMs: 4_000, input: obj, output: obj },
    { name: 'probe_boom', description: 'throws', input: obj, output: obj },
  ],
  origins: [granted],
})

interface Event {
  seq: number
  type: string
  payload: Record<string, unknown>
}

describe('uploaded tool modules (real wrangler dev)', () => {
  let dev: Wrangler
  let ada: Record<string, string>
  let bob: Record<string, string>
  const servers: Server[] = []
  const hits = { granted: 0, other: 0 }
  let granted = ''
  let other = ''

  const request = (path: string, as: Record<string, string>, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
    fetch(`${dev.url}${path}`, { method, headers: { ...as, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(60_000) })

  async function history(session: string): Promise<Event[]> {
    return ((await (await request(`/v1/sessions/${session}/history?limit=1000`, ada)).json()) as { items: Event[] }).items
  }

  /** One prompt, waited for to the end (turns run in the background); the events it added. */
  async function turn(session: string, text: string): Promise<Event[]> {
    const before = (await history(session)).at(-1)?.seq ?? 0
    const res = await request(`/v1/sessions/${session}/prompt`, ada, { text })
    expect(res.status).toBe(202)
    const deadline = Date.now() + 60_000
    for (;;) {
      const view = (await (await request(`/v1/sessions/${session}`, ada)).json()) as { status: string; inbox?: unknown[] }
      const added = (await history(session)).filter((event) => event.seq > before)
      if (view.status === 'idle' && added.some((event) => event.type === 'session.next.step.ended' || event.type === 'session.next.step.failed') && !added.some((e) => e.type === 'session.next.tool.called' && !added.some((o) => (o.type === 'session.next.tool.succeeded' || o.type === 'session.next.tool.failed') && o.payload.toolCallId === e.payload.toolCallId))) return added
      if (Date.now() > deadline) throw new Error(`the turn did not end: ${JSON.stringify(view)}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  const outcome = (added: Event[], toolCallId: string) => {
    const end = added.find((event) => (event.type === 'session.next.tool.succeeded' || event.type === 'session.next.tool.failed') && event.payload.toolCallId === toolCallId)!
    return end.type === 'session.next.tool.succeeded' ? JSON.parse(end.payload.content as string) : (end.payload.error as { code: string; message: string })
  }

  beforeAll(async () => {
    for (const key of ['granted', 'other'] as const) {
      const server = createServer((_req, res) => {
        hits[key] += 1
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello from the ${key} origin`)
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      servers.push(server)
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      if (key === 'granted') granted = url
      else other = url
    }
    dev = await startWrangler()
    ada = { authorization: `Bearer ${await devToken('ada')}` }
    bob = { authorization: `Bearer ${await devToken('bob')}` }
    const stored = await request('/v1/modules', ada, MODULE(granted))
    expect(stored.status, await stored.clone().text()).toBe(201)
    expect((await request('/v1/sessions', ada, { id: 'work' })).status).toBe(201)
    // Module tools act, so they ask by default; this session allows them, as an owner who wants them unasked would.
    const allowed = await request('/v1/sessions/work/config', ada, { permission: { rules: [{ source: 'module:*', action: 'allow' }] } }, 'PUT')
    expect(allowed.status).toBe(200)
    expect((await request('/v1/sessions', bob, { id: 'bob-s' })).status).toBe(201)
  }, 180_000)
  afterAll(async () => {
    await dev?.stop()
    for (const server of servers) server.close()
  })

  it("the local model calls the module's tool; the result is in /history and the step's tools name the version", async () => {
    const { hash } = (await (await request('/v1/modules/probe', ada)).json()) as { hash: string }
    const added = await turn('work', '/tool probe_hello {"name":"ada"}')
    expect(outcome(added, 'call_1_1')).toEqual({ greeting: 'hello ada' })
    const started = added.find((event) => event.type === 'session.next.step.started')!
    const specs = (await (await request(`/v1/sessions/work/artifacts/${started.payload.tools}`, ada)).json()) as { name: string; description: string }[]
    expect(specs.find((spec) => spec.name === 'probe_hello')?.description).toBe(`greets (tool module probe version 1, ${hash.slice(0, 12)})`)
  }, 90_000)

  it('the module fetches the origin it lists; another origin is refused at the gate and never reached', async () => {
    const added = await turn('work', `/tool probe_fetch {"url":"${granted}/a"}\n/tool probe_fetch {"url":"${other}/b"}`)
    const [ok, refused] = [outcome(added, 'call_3_1'), outcome(added, 'call_3_2')]
    expect(ok).toEqual({ status: 200, gate: null, body: 'hello from the granted origin' })
    expect(refused).toMatchObject({ status: 403, gate: 'refused' })
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'ORIGIN_NOT_GRANTED', details: { origin: other } } })
    expect(hits).toEqual({ granted: 1, other: 0 })
  }, 90_000)

  it("a looping tool is stopped by its bound; bob's probes keep answering meanwhile", async () => {
    let running = true
    const probes: number[] = []
    const failed: string[] = []
    const probe = (async () => {
      while (running) {
        const started = performance.now()
        const res = await fetch(`${dev.url}/v1/sessions/bob-s`, { headers: bob, signal: AbortSignal.timeout(10_000) }).catch((error: Error) => error)
        if (res instanceof Response && res.status === 200) probes.push(performance.now() - started)
        else failed.push(String(res instanceof Response ? res.status : res.message))
        if (res instanceof Response) await res.arrayBuffer()
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const started = performance.now()
    const added = await turn('work', '/tool probe_spin {}')
    const took = performance.now() - started
    running = false
    await probe
    const error = outcome(added, 'call_5_1') as { code: string; message: string }
    console.log(`looping tool: ${error.code} after ${took.toFixed(0)} ms (${error.message.slice(0, 120)}); bob's probes n=${probes.length} max=${Math.max(...probes).toFixed(0)} ms`)
    // Which bound stops it first depends on the machine: the sandbox's CPU bound (about 2 s) or the tool's 4 s deadline.
    expect(['BACKEND_LIMIT', 'BACKEND_TIMEOUT']).toContain(error.code)
    expect(failed).toEqual([])
    expect(probes.length).toBeGreaterThan(0)
    expect(Math.max(...probes)).toBeLessThan(1_500)
  }, 90_000)

  it('a throwing tool fails only its own call, and the session answers its next turn', async () => {
    const added = await turn('work', '/tool probe_boom {}\n/tool probe_hello {"name":"again"}')
    expect(outcome(added, 'call_7_1')).toMatchObject({ code: 'BACKEND_FAILED', message: expect.stringContaining('the probe broke') })
    expect(outcome(added, 'call_7_2')).toEqual({ greeting: 'hello again' })
    const next = await turn('work', '/tool calculator {"expression":"6*7"}')
    expect(next.some((event) => event.type === 'session.next.tool.succeeded' && String(event.payload.content).includes('42'))).toBe(true)
  }, 90_000)
})
