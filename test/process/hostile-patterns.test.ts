/**
 * Hostile patterns against a real `wrangler dev`: one principal calls an MCP tool and an app
 * method whose schemas carry a pattern that backtracks polynomially in V8
 * (`^a*…a*$`, k = 12: a 41-character input would take V8 hours), with inputs made to be slow,
 * while another principal reads `/health`. Patterns run on RE2, so each hostile call is refused
 * at once with a coded error and the other principal's latency stays low (target p99 ≤ 200 ms;
 * the bound asserted is generous, the figure is printed). Then the process is killed mid-turn
 * and comes back up: `/health` answers, the attacker's session is readable and idle again.
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptServer } from '../support/script-server.ts'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

const POLYNOMIAL = `^${'a*'.repeat(12)}$`
const HOSTILE = `${'a'.repeat(40)}b`
const SERVER_SCRIPT = fileURLToPath(new URL('../support/mcp-server.ts', import.meta.url))
const APP = {
  manifest: { app: 'finder', version: '1', name: 'Finder', entry: 'index.html' },
  files: { 'index.html': '<p>finder</p>' },
  backend: { module: 'export default { async find(input) { return { found: input.q } } }' },
  interface: { methods: { find: { kind: 'query', input: { type: 'object', properties: { q: { type: 'string', pattern: POLYNOMIAL } }, required: ['q'] }, output: { type: 'object' } } } },
}

/** p50/p99/max of latencies, for the log. */
function describe_(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b)
  return `${sorted.length} requests, p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p99 ${sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms; ${JSON.stringify(latencies.map(Math.round))}`
}

type Event = { seq: number; type: string; payload: Record<string, unknown> }

describe('hostile patterns (real wrangler dev)', () => {
  let dev: Wrangler
  let server: { child: ChildProcess; url: string }
  let attacker: Record<string, string>
  let bystander: Record<string, string>
  const persistTo = tempPersistDir()
  const call = (as: Record<string, string>, path: string, init: RequestInit = {}) => fetch(`${dev.url}${path}`, { ...init, headers: { ...as, 'content-type': 'application/json' } })
  const view = async (id: string) => (await (await call(attacker, `/v1/sessions/${id}`)).json()) as { status: string }
  const history = async (id: string) => ((await (await call(attacker, `/v1/sessions/${id}/history?limit=1000`)).json()) as { items: Event[] }).items
  async function idle(id: string, timeoutMs = 30_000): Promise<Event[]> {
    const deadline = Date.now() + timeoutMs
    while ((await view(id)).status !== 'idle') {
      if (Date.now() > deadline) throw new Error(`session ${id} still busy`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return history(id)
  }

  /** `/health` latencies read one after another, as the bystander, while `during` runs. */
  async function healthLatencies(during: () => Promise<unknown>): Promise<number[]> {
    let running = true
    const latencies: number[] = []
    const watch = (async () => {
      while (running) {
        const started = performance.now()
        expect((await call(bystander, '/health')).status).toBe(200)
        latencies.push(performance.now() - started)
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    await during()
    running = false
    await watch
    return latencies
  }

  beforeAll(async () => {
    server = await startScriptServer(SERVER_SCRIPT)
    dev = await startWrangler({ persistTo })
    attacker = { authorization: `Bearer ${await devToken('pattern-attacker')}` }
    bystander = { authorization: `Bearer ${await devToken('pattern-bystander')}` }
  })
  afterAll(async () => {
    await dev?.stop()
    server?.child.kill('SIGKILL')
  })

  it('hostile inputs are refused at once; another principal’s /health stays fast', async () => {
    expect((await call(attacker, '/v1/config', { method: 'PUT', body: JSON.stringify({ mcpServers: [{ name: 'evil', url: `${server.url}/json/mcp` }], permission: { rules: [{ source: 'mcp:*', action: 'allow' }] } }) })).status).toBe(200)
    expect((await call(attacker, '/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'hostile' }) })).status).toBe(201)
    const stored = await call(attacker, '/v1/apps/packages', { method: 'POST', body: JSON.stringify(APP) })
    expect(stored.status).toBe(201)
    expect((await call(attacker, '/v1/apps/installs', { method: 'POST', body: JSON.stringify({ package: ((await stored.json()) as { hash: string }).hash }) })).status).toBe(201)

    const quiet = await healthLatencies(() => new Promise((r) => setTimeout(r, 3000)))
    const appCodes: string[] = []
    const rounds = (q: string) => async () => {
      for (let round = 0; round < 5; round++) {
        const res = await call(attacker, '/v1/apps/installs/finder/call', { method: 'POST', body: JSON.stringify({ method: 'find', input: { q } }) })
        appCodes.push(`${res.status} ${((await res.json()) as { error?: { code: string } }).error?.code ?? 'ok'}`)
        const prompt = await call(attacker, '/v1/sessions/hostile/prompt', { method: 'POST', body: JSON.stringify({ text: `/tool mcp.evil.lookup {"q":"${q}"}` }) })
        expect(prompt.status).toBe(202)
        await idle('hostile')
      }
    }
    // The same traffic with inputs that match: what the turns themselves cost the bystander. CPU
    // seconds of workerd say the same without the machine's load in them.
    const cpu = () => dev.workerdCpuSeconds().reduce((sum, s) => sum + s, 0)
    let mark = cpu()
    const benign = await healthLatencies(rounds('aaaa'))
    const benignCpu = cpu() - mark
    expect(new Set(appCodes.splice(0))).toEqual(new Set(['200 ok']))
    mark = cpu()
    const latencies = await healthLatencies(rounds(HOSTILE))
    const hostileCpu = cpu() - mark

    const log = await history('hostile')
    const failures = log.filter((e) => e.type === 'session.next.tool.failed').map((e) => (e.payload.error as { code: string }).code)
    expect(failures).toEqual(Array(5).fill('TOOL_INPUT_INVALID'))
    expect(log.filter((e) => e.type === 'session.next.tool.succeeded').map((e) => e.payload.content)).toEqual(Array(5).fill('found aaaa'))
    expect(new Set(appCodes)).toEqual(new Set(['400 INVALID_INPUT']))
    console.log(`bystander /health with no traffic: ${describe_(quiet)}`)
    console.log(`bystander /health during matching calls: ${describe_(benign)}`)
    const sorted = [...latencies].sort((a, b) => a - b)
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!
    console.log(`bystander /health during the attack: ${describe_(latencies)}`)
    console.log(`workerd CPU for 5 rounds: matching inputs ${benignCpu.toFixed(2)} s, hostile inputs ${hostileCpu.toFixed(2)} s`)
    expect(sorted.length).toBeGreaterThan(5)
    expect(p99).toBeLessThan(2000)
    // Backtracking would cost seconds per call (hours at 41 characters); refusing costs less than matching.
    expect(hostileCpu).toBeLessThan(benignCpu * 3 + 1)
  })

  it('killed mid-turn, the process comes back up and the session is served again', async () => {
    // A call that hangs keeps a turn open; the process dies under it.
    const prompt = await call(attacker, '/v1/sessions/hostile/prompt', { method: 'POST', body: JSON.stringify({ text: `/tool mcp.evil.hang {"ms":60000}\n/tool mcp.evil.lookup {"q":"${HOSTILE}"}` }) })
    expect(prompt.status).toBe(202)
    const deadline = Date.now() + 20_000
    while (!(await history('hostile')).some((e) => e.type === 'session.next.tool.called' && e.payload.name === 'mcp.evil.hang')) {
      if (Date.now() > deadline) throw new Error('the hang call never started')
      await new Promise((r) => setTimeout(r, 100))
    }
    await dev.crash()
    const started = Date.now()
    dev = await startWrangler({ persistTo })
    expect((await call(bystander, '/health')).status).toBe(200)
    const log = await idle('hostile', 60_000)
    console.log(`restart to idle: ${Date.now() - started} ms`)
    const hang = log.filter((e) => e.type === 'session.next.tool.called' && e.payload.name === 'mcp.evil.hang').at(-1)!
    const outcome = log.find((e) => e.type === 'session.next.tool.failed' && e.payload.toolCallId === hang.payload.toolCallId)
    expect(outcome?.payload.error).toMatchObject({ code: 'ABANDONED' })
    expect((await call(bystander, '/health')).status).toBe(200)
  })
})
