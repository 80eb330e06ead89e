/**
 * Orchestration benchmarks against a real `wrangler dev`.
 *
 * - Coordination tax: N trivial packages run by an orchestration vs the same N sessions run
 *   directly with the same provider turns (two prompts, each one tool call and one summary
 *   turn), N = 1, 10, 50: wall time and ledger rows written per package.
 * - Fan-out only when it pays: N small packages run inline in one agent (they state an expected
 *   work below the break-even) vs the same N fanned out to N agents: wall time and rows.
 * - Fan-out: 20 independent packages vs the same 20 chained in series; the physical limit is
 *   the longest single package, measured in the same run.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../../test/support/wrangler.ts'

let dev: Wrangler
let auth: Record<string, string>
beforeAll(async () => {
  dev = await startWrangler()
  auth = { authorization: `Bearer ${await devToken('bench')}` }
})
afterAll(async () => dev?.stop())

type View = { status: string; packages: { id: string; agent: string | null; session: string | null; inline: string | null }[] }
let run = 0

const post = (path: string, body: unknown) =>
  fetch(`${dev.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) })
const get = async <T>(path: string): Promise<T> => (await (await fetch(`${dev.url}${path}`, { headers: auth })).json()) as T

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 25))
}

/** Envelopes on one history address (each is one row of the log, plus the same index rows for all). */
async function count(path: string): Promise<number> {
  let total = 0
  for (let after = 0; ; ) {
    const page = await get<{ items: unknown[]; next: number | null }>(`${path}${path.includes('?') ? '&' : '?'}after=${after}&limit=1000`)
    total += page.items.length
    if (page.next === null) return total
    after = page.next
  }
}

const TRIVIAL = '/beat declare /tool declare {}\n/beat execute /tool report {"result":"ok"}'

async function orchestrate(packages: { id: string; needs?: string[]; instructions: string; expect?: { ms: number } }[]): Promise<{ ms: number; id: string; view: View }> {
  const id = `bench-${run++}`
  const start = performance.now()
  const res = await post('/v1/orchestrations', { id, goal: 'bench', plan: packages })
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
  let view: View | undefined
  await until(async () => (view = await get<View>(`/v1/orchestrations/${id}`)).status !== 'running')
  const ms = performance.now() - start
  if (view!.status !== 'completed') throw new Error(`${id} ${view!.status}`)
  return { ms, id, view: view! }
}

/** Rows of an orchestration: its own addresses, and each agent session's whole ledger. */
async function orchestrationRows(id: string, view: View): Promise<number> {
  // Let late step-boundary burn reports land before counting.
  await new Promise((r) => setTimeout(r, 500))
  let rows = (await count(`/v1/orchestrations/${id}/history`)) + (await count(`/v1/orchestrations/${id}/history?address=control`))
  // Once per agent: an inline agent's session and address hold several packages.
  for (const agent of new Set(view.packages.map((p) => p.agent))) {
    rows += await count(`/v1/orchestrations/${id}/history?address=agent.${agent}`)
    rows += (await get<{ lastSequence: number }>(`/v1/sessions/orchestration.${id}.agent.${agent}`)).lastSequence
  }
  return rows
}

async function direct(n: number): Promise<{ ms: number; rows: number }> {
  const ids = Array.from({ length: n }, () => `bench-direct-${run++}`)
  const start = performance.now()
  await Promise.all(
    ids.map(async (id) => {
      await post('/v1/sessions', { id })
      await post(`/v1/sessions/${id}/prompt`, { id: 'one', text: '/tool calculator {"expression":"1+1"}' })
      await post(`/v1/sessions/${id}/prompt`, { id: 'two', text: '/tool calculator {"expression":"2+2"}' })
    }),
  )
  await until(async () => (await Promise.all(ids.map((id) => get<{ status: string; counts: { prompts: number } }>(`/v1/sessions/${id}`)))).every((v) => v.status === 'idle' && v.counts.prompts === 2))
  const ms = performance.now() - start
  const rows = (await Promise.all(ids.map((id) => get<{ lastSequence: number }>(`/v1/sessions/${id}`)))).reduce((sum, v) => sum + v.lastSequence, 0)
  return { ms, rows }
}

describe('orchestration', () => {
  it('coordination tax: N trivial packages vs the same N sessions directly', async () => {
    await orchestrate([{ id: 'warm', instructions: TRIVIAL }])
    await direct(1)
    console.log('\ncoordination tax (wall time and ledger rows per package; target ≤ 1.3× wall for N = 10)')
    console.log('    N   orchestration ms   direct ms   wall ×   rows/pkg orch   rows/pkg direct   rows ×')
    for (const n of [1, 10, 50]) {
      const o = await orchestrate(Array.from({ length: n }, (_, i) => ({ id: `p${i}`, instructions: TRIVIAL })))
      const oRows = await orchestrationRows(o.id, o.view)
      const d = await direct(n)
      const line = [
        String(n).padStart(5),
        o.ms.toFixed(0).padStart(18),
        d.ms.toFixed(0).padStart(11),
        `${(o.ms / d.ms).toFixed(2)}×`.padStart(8),
        (oRows / n).toFixed(1).padStart(15),
        (d.rows / n).toFixed(1).padStart(17),
        `${(oRows / d.rows).toFixed(2)}×`.padStart(8),
      ]
      console.log(line.join(''))
    }
  })

  it('fan-out only when it pays: N small packages inline in one agent vs fanned out to N agents', async () => {
    await orchestrate([{ id: 'warm', instructions: TRIVIAL, expect: { ms: 5 } }])
    console.log('\nsmall packages inline in one agent vs fanned out (wall time and ledger rows)')
    console.log('    N   inline ms   fanned-out ms   wall ×   rows inline   rows fanned-out   rows/pkg saved   agents inline')
    for (const n of [1, 10, 50]) {
      const plan = (expect?: { ms: number }) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, instructions: TRIVIAL, ...(expect ? { expect } : {}) }))
      const inline = await orchestrate(plan({ ms: 5 }))
      const inlineRows = await orchestrationRows(inline.id, inline.view)
      const fanned = await orchestrate(plan())
      const fannedRows = await orchestrationRows(fanned.id, fanned.view)
      const line = [
        String(n).padStart(5),
        inline.ms.toFixed(0).padStart(12),
        fanned.ms.toFixed(0).padStart(16),
        `${(inline.ms / fanned.ms).toFixed(2)}×`.padStart(9),
        String(inlineRows).padStart(14),
        String(fannedRows).padStart(18),
        ((fannedRows - inlineRows) / n).toFixed(1).padStart(17),
        String(new Set(inline.view.packages.map((p) => p.agent)).size).padStart(16),
      ]
      console.log(line.join(''))
    }
  })

  it('fan-out: 20 independent packages vs the same 20 in series; the limit is the longest package', async () => {
    const work = '/beat declare /tool declare {}\n/beat execute /slow 25\n/beat execute /tokens 20\n/beat execute /tool report {"result":"ok"}'
    const single = await orchestrate([{ id: 'only', instructions: work }])
    const parallel = await orchestrate(Array.from({ length: 20 }, (_, i) => ({ id: `p${i}`, instructions: work })))
    const serial = await orchestrate(Array.from({ length: 20 }, (_, i) => ({ id: `p${i}`, needs: i > 0 ? [`p${i - 1}`] : [], instructions: work })))
    console.log('\nfan-out, 20 packages of ~0.6 s of model streaming each')
    console.log(`  longest single package   ${single.ms.toFixed(0)} ms   (physical limit for the fan-out)`)
    console.log(`  20 in series             ${serial.ms.toFixed(0)} ms`)
    console.log(`  20 fanned out            ${parallel.ms.toFixed(0)} ms   = ${(serial.ms / parallel.ms).toFixed(1)}× faster than series, ${(parallel.ms / single.ms).toFixed(2)}× the limit`)
  })
})
