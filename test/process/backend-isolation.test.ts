/**
 * No app backend can take the server down (real `wrangler dev`, started as `npm start` starts it).
 * One principal (mallory) runs each attack a backend can make on its host: a method that loops
 * forever, a module that loops forever at its top level (at upload, before anything is installed),
 * a method that fills its heap, a method that holds 2.5 GiB of ArrayBuffers, a promise that never
 * settles. Meanwhile another principal (bob) probes `/health` and his own session every 100 ms and
 * keeps an SSE tail of that session open. Each attack gets a coded answer, keeps nothing it wrote,
 * and the backend answers again afterwards; bob's probes all answer (latency printed, bounded
 * generously: the machine is shared); his tail survives every attack and sees his next turn.
 * Then the server restarts on the same storage and everything reads back.
 */
import { execSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse, type SseMessage } from '../../client/sse.ts'
import { checkPackage } from '../../objects/apps/package.ts'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

const ANY = { type: 'object' }
/** Every attack first writes, so "nothing the call wrote is kept" is checked on each. */
const HOSTILE = `export default {
  async read(input, state) { return { value: await state.get(input.key) } },
  async spin(input, state) { await state.put(input.key, 'written before the loop'); for (;;) {} },
  // hog and buffers yield between allocations, so only a memory bound can stop them (not the CPU one)
  async hog(input, state) {
    await state.put(input.key, 'written before the heap filled')
    const keep = []
    for (let i = 0; ; i++) { keep.push(new Array(1e6).fill(Math.random())); if (i % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 0)) }
  },
  async buffers(input, state) {
    await state.put(input.key, 'written before the buffers')
    const keep = []
    for (let i = 0; i < 40; i++) {
      const buffer = new ArrayBuffer(64 * 1024 * 1024)
      new Uint8Array(buffer).fill(1)
      keep.push(buffer)
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    return { held: keep.length }
  },
  async never(input, state) { await state.put(input.key, 'written before waiting forever'); return await new Promise(() => {}) },
}`
const METHODS = {
  read: { kind: 'query', input: ANY, output: ANY },
  spin: { kind: 'update', timeoutMs: 3_000, input: ANY, output: ANY },
  hog: { kind: 'update', input: ANY, output: ANY },
  buffers: { kind: 'update', input: ANY, output: ANY },
  never: { kind: 'update', timeoutMs: 2_000, input: ANY, output: ANY },
}
const HOSTILE_APP = { manifest: { app: 'hostile', version: '1', name: 'Hostile', entry: 'index.html' }, files: { 'index.html': '<p>x</p>' }, backend: { module: HOSTILE }, interface: { methods: METHODS } }
const LOOP_AT_LOAD = { ...HOSTILE_APP, manifest: { ...HOSTILE_APP.manifest, app: 'loops-at-load' }, backend: { module: `for (;;) {}\n${HOSTILE}` } }
const COUNTER = { manifest: { app: 'counter', version: '1', name: 'Counter', entry: 'index.html' }, files: { 'index.html': '<p>c</p>' }, backend: { module: "export default { async count(i, s) { return { count: (await s.get('n')) ?? 0 } }, async increment(i, s) { const n = ((await s.get('n')) ?? 0) + i.by; await s.put('n', n); return { count: n } } }" }, interface: { methods: { count: { kind: 'query', input: ANY, output: ANY }, increment: { kind: 'update', input: ANY, output: ANY } } } }

/** Latencies of bob's probes while one attack ran. */
interface Probes {
  health: number[]
  session: number[]
  failed: string[]
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)] ?? NaN
const figures = (values: number[]) => `n=${values.length} p50=${percentile(values, 50).toFixed(0)} p99=${percentile(values, 99).toFixed(0)} max=${Math.max(...values).toFixed(0)} ms`
/** Generous: only a server that stopped answering (seconds) breaks it; the target is 200 ms. */
const P99_BOUND_MS = 1_500

describe('app backends cannot stop the server (real wrangler dev)', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler
  let mallory: Record<string, string>
  let bob: Record<string, string>
  const tail: { events: SseMessage[]; ended: string | null } = { events: [], ended: null }
  let tailAbort: AbortController

  const request = (path: string, as: Record<string, string>, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
    fetch(`${dev.url}${path}`, { method, headers: { ...as, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(60_000) })
  const callAs = (as: Record<string, string>, app: string, method: string, input: unknown) => request(`/v1/apps/installs/${app}/call`, as, { method, input })
  const read = async (key: string) => ((await (await callAs(mallory, 'hostile', 'read', { key })).json()) as { output: { value: unknown } }).output.value

  async function install(pkg: unknown, as: Record<string, string>): Promise<string> {
    const stored = await request('/v1/apps/packages', as, pkg)
    expect([200, 201]).toContain(stored.status)
    const { hash } = (await stored.json()) as { hash: string }
    expect((await request('/v1/apps/installs', as, { package: hash })).status).toBe(201)
    return hash
  }

  /** Runs `attack` while bob probes `/health` and his own session every 100 ms; prints the figures. */
  async function during<T>(name: string, attack: () => Promise<T>): Promise<{ result: T; probes: Probes }> {
    const probes: Probes = { health: [], session: [], failed: [] }
    let running = true
    const probe = async (into: number[], path: string, as: Record<string, string> = {}) => {
      while (running) {
        const started = performance.now()
        try {
          const res = await fetch(`${dev.url}${path}`, { headers: as, signal: AbortSignal.timeout(10_000) })
          await res.arrayBuffer()
          if (res.status === 200) into.push(performance.now() - started)
          else probes.failed.push(`${path} ${res.status}`)
        } catch (error) {
          probes.failed.push(`${path} ${(error as Error).message}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const loops = [probe(probes.health, '/health'), probe(probes.session, '/v1/sessions/bob-s', bob)]
    const started = performance.now()
    const result = await attack()
    const took = performance.now() - started
    running = false
    await Promise.all(loops)
    const error = result instanceof Response ? ((await result.clone().json().catch(() => ({}))) as { error?: { code: string; details?: { limit?: string } } }).error : undefined
    const answer = result instanceof Response ? ` ${result.status} ${error?.code ?? ''}${error?.details?.limit ? ` (${error.details.limit})` : ''}` : ''
    console.log(`${name}: answered${answer} in ${took.toFixed(0)} ms; bob /health ${figures(probes.health)}; bob's session ${figures(probes.session)}; load ${execSync('uptime').toString().trim().replace(/.*load/, 'load')}`)
    return { result, probes }
  }

  function expectBobUnharmed(probes: Probes): void {
    expect(probes.failed).toEqual([])
    expect(probes.health.length).toBeGreaterThan(0)
    expect(probes.session.length).toBeGreaterThan(0)
    expect(percentile(probes.health, 99)).toBeLessThan(P99_BOUND_MS)
    expect(percentile(probes.session, 99)).toBeLessThan(P99_BOUND_MS)
    expect(tail.ended).toBeNull()
  }

  async function turn(as: Record<string, string>, session: string, text: string): Promise<number> {
    const res = await request(`/v1/sessions/${session}/prompt`, as, { text })
    expect(res.status).toBe(202)
    return ((await res.json()) as { sequence: number }).sequence
  }

  beforeAll(async () => {
    dev = await startWrangler({ persistTo })
    mallory = { authorization: `Bearer ${await devToken('mallory')}` }
    bob = { authorization: `Bearer ${await devToken('bob')}` }
    expect((await request('/v1/sessions', bob, { id: 'bob-s' })).status).toBe(201)
    await turn(bob, 'bob-s', 'before the attacks')
    await install(COUNTER, bob)
    expect(await (await callAs(bob, 'counter', 'increment', { by: 3 })).json()).toEqual({ output: { count: 3 } })
    await install(HOSTILE_APP, mallory)
    // Bob's tail from the start of his session: open through every attack.
    tailAbort = new AbortController()
    const res = await fetch(`${dev.url}/v1/sessions/bob-s/events?after=0`, { headers: bob, signal: tailAbort.signal })
    expect(res.status).toBe(200)
    void (async () => {
      try {
        for await (const message of readSse(res.body!)) tail.events.push(message)
        tail.ended = 'the stream ended'
      } catch (error) {
        if (!tailAbort.signal.aborted) tail.ended = String(error)
      }
    })()
  }, 180_000)
  afterAll(async () => {
    tailAbort?.abort()
    await dev?.stop()
  })

  it('baseline: bob\'s probes with no attack running (the same machine, the same moment)', async () => {
    const { probes } = await during('no attack (baseline)', () => new Promise((resolve) => setTimeout(resolve, 3_000)))
    expectBobUnharmed(probes)
  })

  it('a method that loops forever is stopped with a code, keeps nothing, and its backend answers again', async () => {
    const { result, probes } = await during('busy-looping method', () => callAs(mallory, 'hostile', 'spin', { key: 'spin' }))
    const error = ((await result.json()) as { error: { code: string; details: Record<string, unknown> } }).error
    // Which bound stops it first depends on the machine: the CPU bound (about 2 s locally) or the method's 3 s deadline.
    expect(error.code === 'BACKEND_LIMIT' ? [result.status, error.details.limit] : [result.status, error.code]).toEqual(error.code === 'BACKEND_LIMIT' ? [502, 'cpu'] : [504, 'BACKEND_TIMEOUT'])
    expectBobUnharmed(probes)
    expect(await read('spin')).toBeNull()
  })

  it('a module that loops forever at its top level is refused at upload, and nothing is stored', async () => {
    const { result, probes } = await during('busy loop at load (upload)', () => request('/v1/apps/packages', mallory, LOOP_AT_LOAD))
    expect(result.status).toBe(422)
    expect(await result.json()).toMatchObject({ error: { code: 'BACKEND_LIMIT', details: { limit: 'cpu' } } })
    expectBobUnharmed(probes)
    const { hash } = checkPackage(LOOP_AT_LOAD)
    expect((await request(`/v1/apps/packages/${hash}`, mallory)).status).toBe(404)
    expect(await read('spin')).toBeNull()
  })

  it('a method that fills its heap is stopped at the memory bound, keeps nothing, and the server stays up', async () => {
    const { result, probes } = await during('heap exhaustion', () => callAs(mallory, 'hostile', 'hog', { key: 'hog' }))
    expect(result.status).toBe(502)
    expect(await result.json()).toMatchObject({ error: { code: 'BACKEND_LIMIT', details: { limit: 'memory' } } })
    expectBobUnharmed(probes)
    expect(await read('hog')).toBeNull()
  })

  it('a method holding 2.5 GiB of ArrayBuffers is stopped at the memory bound', async () => {
    const { result, probes } = await during('2.5 GiB of ArrayBuffers', () => callAs(mallory, 'hostile', 'buffers', { key: 'buffers' }))
    expect(result.status).toBe(502)
    expect(await result.json()).toMatchObject({ error: { code: 'BACKEND_LIMIT', details: { limit: 'memory' } } })
    expectBobUnharmed(probes)
    expect(await read('buffers')).toBeNull()
  })

  it('a promise that never settles is 504 BACKEND_TIMEOUT at its deadline', async () => {
    const { result, probes } = await during('never-settling promise', () => callAs(mallory, 'hostile', 'never', { key: 'never' }))
    expect(result.status).toBe(504)
    expect(await result.json()).toMatchObject({ error: { code: 'BACKEND_TIMEOUT', details: { method: 'never', timeoutMs: 2_000 } } })
    expectBobUnharmed(probes)
    expect(await read('never')).toBeNull()
  })

  it("bob's tail saw his next turn, and after a restart everything reads back", async () => {
    const sequence = await turn(bob, 'bob-s', 'after the attacks')
    await expect.poll(() => tail.events.some((m) => m.event === 'session.next.drain.ended' && Number(m.id) > sequence), { timeout: 60_000 }).toBe(true)
    expect(tail.ended).toBeNull()
    tailAbort.abort()

    await dev.stop()
    dev = await startWrangler({ persistTo })
    expect(await (await callAs(bob, 'counter', 'count', {})).json()).toEqual({ output: { count: 3 } })
    const history = (await (await request('/v1/sessions/bob-s/history?limit=1000', bob)).json()) as { items: { type: string; payload: { text?: string } }[] }
    const said = history.items.filter((e) => e.type === 'session.next.text').map((e) => e.payload.text).join(' ')
    expect(said).toContain('before the attacks')
    expect(said).toContain('after the attacks')
    for (const key of ['spin', 'hog', 'buffers', 'never']) expect(await read(key)).toBeNull()
    const installs = (await (await request('/v1/apps/installs', mallory)).json()) as { items: { app: string }[] }
    expect(installs.items.map((item) => item.app)).toEqual(['hostile'])
  })
})
