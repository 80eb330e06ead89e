/**
 * One orchestration of fast packages shares the server: under a real `wrangler dev` (every object
 * on one thread, the local model in process, the dev trace collector on as `npm start` has it), a
 * 200-package chain whose packages only declare and report must leave another principal's
 * `/health`, reads and prompts answered, answer its own create at once, and take a cancel within
 * one package. Then a kill -9 and a restart read everything back. The bounds are generous (the
 * machine is shared): only a server that holds every request until the run ends breaks them. The
 * figures are printed.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { devToken } from '../support/wrangler.ts'
import { Restartable, until } from '../support/restartable.ts'

type View = { status: string; reason: string | null; lastSequence: number; packages: { id: string; beat: string; result: unknown }[] }

const PACKAGES = 200
const chain = (prefix: string) =>
  Array.from({ length: PACKAGES }, (_, i) => ({
    id: `${prefix}${i}`,
    needs: i === 0 ? [] : [`${prefix}${i - 1}`],
    instructions: [`/beat declare /tool declare {"writes":["file:${prefix}${i}"]}`, `/beat execute /tool report {"result":"${prefix}${i} done"}`].join('\n'),
  }))
const reported = (view: View) => view.packages.filter((p) => p.beat === 'reported').length
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? Number.NaN
const figures = (xs: number[]) => `n ${xs.length}, p50 ${quantile(xs, 0.5).toFixed(0)} ms, p99 ${quantile(xs, 0.99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`

/** Another principal's traffic, one request at a time: `/health`, a read of its own session, and now and then a prompt to it. */
function otherPrincipal(server: Restartable, auth: Record<string, string>, session: string) {
  const latency = { health: [] as number[], read: [] as number[], prompt: [] as number[] }
  let running = true
  const timed = async (into: number[], request: () => Promise<Response>) => {
    const began = performance.now()
    const res = await request()
    await res.arrayBuffer()
    into.push(performance.now() - began)
    if (!res.ok) throw new Error(`the other principal got ${res.status}`)
  }
  const done = (async () => {
    for (let i = 0; running; i++) {
      await timed(latency.health, () => fetch(`${server.url}/health`, { headers: auth }))
      await timed(latency.read, () => fetch(`${server.url}/v1/sessions/${session}`, { headers: auth }))
      if (i % 10 === 0) {
        const body = JSON.stringify({ id: `p${i}-${Date.now()}`, text: 'hello' })
        await timed(latency.prompt, () => fetch(`${server.url}/v1/sessions/${session}/prompt`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body }))
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  })()
  return {
    latency,
    async stop() {
      running = false
      await done
    },
  }
}

describe('a 200-package orchestration on one wrangler dev', () => {
  const server = new Restartable()
  afterAll(() => server.stop())

  it("leaves others' requests answered, answers its create at once, takes a cancel within one package, and reads back after a restart", async () => {
    await server.start()
    const other = { authorization: `Bearer ${await devToken('other-principal')}` }
    const own = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { ...other, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'bystander' }) })
    expect(own.status).toBe(201)

    // A: a 200-package chain, run to the end while another principal works.
    const traffic = otherPrincipal(server, other, 'bystander')
    const began = performance.now()
    const created = await server.post('/v1/orchestrations', { id: 'chain-a', goal: 'a long chain of small packages', plan: chain('a') })
    const createMs = performance.now() - began
    expect(created.status).toBe(201)
    const view = await until(async () => {
      const v = await server.get<View>('/v1/orchestrations/chain-a')
      return v.status !== 'running' && v
    }, 'chain-a to finish', 540_000, 250)
    const runMs = performance.now() - began
    await traffic.stop()
    const { health, read, prompt } = traffic.latency
    console.log(`orchestration load: ${PACKAGES} packages in ${(runMs / 1000).toFixed(1)} s; create answered in ${createMs.toFixed(0)} ms`)
    console.log(`  other principal /health: ${figures(health)}`)
    console.log(`  other principal session read: ${figures(read)}`)
    console.log(`  other principal prompt admitted: ${figures(prompt)}`)
    expect(view.status).toBe('completed')
    expect(reported(view)).toBe(PACKAGES)
    // Generous: a server that holds requests until the run ends answers none of these in time.
    expect(createMs).toBeLessThan(5_000)
    expect(health.length).toBeGreaterThanOrEqual(10)
    expect(quantile(health, 0.99)).toBeLessThan(10_000)
    expect(quantile(read, 0.99)).toBeLessThan(10_000)
    expect(Math.max(...prompt)).toBeLessThan(10_000)

    // B: the same chain, cancelled a few packages in.
    expect((await server.post('/v1/orchestrations', { id: 'chain-b', goal: 'cancel me', plan: chain('b') })).status).toBe(201)
    await until(async () => reported(await server.get<View>('/v1/orchestrations/chain-b')) >= 3, 'chain-b to report three packages', 120_000, 100)
    const before = reported(await server.get<View>('/v1/orchestrations/chain-b'))
    const sent = performance.now()
    const cancel = await server.post('/v1/orchestrations/chain-b/cancel', { reason: 'enough' })
    const cancelMs = performance.now() - sent
    expect(cancel.status).toBe(200)
    const { cancelled } = (await cancel.json()) as { cancelled: string[] }
    const atCancel = PACKAGES - cancelled.length
    const final = await until(async () => {
      const v = await server.get<View>('/v1/orchestrations/chain-b')
      return v.status !== 'running' && v
    }, 'chain-b to end', 60_000)
    const logB = await server.history('chain-b', 'orchestrations')
    const control = (await (await server.fetch('/v1/orchestrations/chain-b/history?address=control')).json()) as { items: unknown[] }
    const cancelledAt = logB.find((e) => e.type === 'orchestration.package.cancelled')!.seq
    const inFlight = atCancel - before
    console.log(`  cancel answered in ${cancelMs.toFixed(0)} ms: ${before} packages reported when it was sent, ${atCancel} when it took effect (${inFlight} in between), ${reported(final)} at the end`)
    expect(control.items).toHaveLength(1)
    expect(cancelMs).toBeLessThan(5_000)
    expect(final.status).toBe('cancelled')
    // Once the orchestration has the cancel, no package reports: every report is before its first cancelled decision.
    expect(logB.filter((e) => e.type === 'orchestration.package.reported').every((e) => e.seq < cancelledAt)).toBe(true)
    expect(reported(final)).toBe(atCancel)
    // On its way the cancel waits its turn on the shared thread, as any request does: generous, and printed above.
    expect(inFlight).toBeLessThanOrEqual(3)
    await new Promise((r) => setTimeout(r, 1_000))
    expect(reported(await server.get<View>('/v1/orchestrations/chain-b'))).toBe(atCancel)

    // kill -9, restart, read everything back: both views as they were, every decision of A there.
    const logA = await server.history('chain-a', 'orchestrations')
    await server.crash()
    await server.start()
    const afterA = await server.get<View>('/v1/orchestrations/chain-a')
    const afterB = await server.get<View>('/v1/orchestrations/chain-b')
    expect(afterA).toEqual(await server.get<View>('/v1/orchestrations/chain-a'))
    expect(afterA.status).toBe('completed')
    expect(afterA.packages.map((p) => p.result)).toEqual(chain('a').map((p) => `${p.id} done`))
    expect(afterB.status).toBe('cancelled')
    expect(reported(afterB)).toBe(atCancel)
    const replayA = await server.history('chain-a', 'orchestrations')
    expect(replayA.length).toBeGreaterThanOrEqual(logA.length)
    expect(replayA.slice(0, logA.length)).toEqual(logA)
    expect(replayA.filter((e) => e.type === 'orchestration.package.reported')).toHaveLength(PACKAGES)
    expect(replayA.filter((e) => e.type === 'orchestration.package.assigned')).toHaveLength(PACKAGES)
  }, 900_000)
})
