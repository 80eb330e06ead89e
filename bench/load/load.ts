/**
 * `npm run load`: N sessions driven at once through a real `wrangler dev` on
 * loopback, for N = 10, 100, 1,000, and the curve of what each costs.
 *
 * Each session takes `TURNS` turns one after another: prompt (timed until its
 * receipt: the admission latency), then follow the session's SSE stream from
 * the receipt until `drain.ended`. All N sessions run at the same time. Rows
 * written come from the harness's own worker entry (bench/load/worker.ts: the
 * real worker and objects with every storage write counted, and a
 * `/__bench/rows` route production does not have), read before and after the
 * turns once the count has settled (metering and the graph write after the turn).
 *
 * Each size also measures its limit in the same `wrangler dev`: the same N requests at once
 * through the same gate, each to its own object appending one envelope (see `limit`), and
 * the CPU that workerd and this client used while the turns ran, so a reader sees whether
 * the server or the harness was the bottleneck.
 *
 * Bounded in count and time: `--sizes 10,100,1000`, `--turns 1`, and
 * `--seconds 180` per size for creating the sessions and again for their turns
 * (sessions not created or not finished by then are reported, not waited for).
 * `--principals each` (default) gives every session its own owner, as N people
 * with a session each; `one` makes one principal own them all, so the owner's
 * config, graph and meter objects are shared by every session. `--statements` also
 * prints each object's rows per turn by statement (what writes them).
 *
 * @example
 * npm run load                                # the full curve
 * npm run load -- --sizes 10,100 --turns 1    # a quick look
 */
import { parseArgs } from 'node:util'
import { readSse } from '../../client/sse.ts'
import { devToken, startWrangler } from '../../test/support/wrangler.ts'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10,100,1000' },
    turns: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '180' },
    principals: { type: 'string', default: 'each' },
    statements: { type: 'boolean', default: false },
  },
})
const SIZES = values.sizes.split(',').map(Number)
const TURNS = Number(values.turns)
const LIMIT_MS = Number(values.seconds) * 1000
const EACH = values.principals === 'each'
if (SIZES.some((n) => !(n > 0 && n <= 5000)) || !(TURNS > 0 && TURNS <= 20) || !(LIMIT_MS > 0 && LIMIT_MS <= 600_000) || !['each', 'one'].includes(values.principals)) {
  console.error('usage: npm run load -- [--sizes 10,100,1000 (each 1–5000)] [--turns 1–20] [--seconds 1–600] [--principals each|one]')
  process.exit(2)
}

const dev = await startWrangler({ script: 'bench/load/worker.ts' })
const run = Date.now().toString(36)
const shared = `Bearer ${await devToken('load')}`
/** The session's owner: its own principal (N people, one session each) or one principal for all. */
const tokens = new Map<string, string>()
async function authFor(id: string): Promise<{ authorization: string }> {
  if (!EACH) return { authorization: shared }
  let token = tokens.get(id)
  if (!token) tokens.set(id, (token = `Bearer ${await devToken(`load-${id}`)}`))
  return { authorization: token }
}

const post = async (id: string, path: string, body: unknown, signal?: AbortSignal) => {
  const headers = { 'content-type': 'application/json', ...(await authFor(id)) }
  const res = await fetch(`${dev.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) })
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`)
  return res.json() as Promise<Record<string, unknown>>
}

async function rows(): Promise<Record<string, number>> {
  return (await (await fetch(`${dev.url}/__bench/rows`)).json()) as Record<string, number>
}

async function statements(): Promise<Record<string, Record<string, number>>> {
  return (await (await fetch(`${dev.url}/__bench/rows?by=statement`)).json()) as Record<string, Record<string, number>>
}

/** The row counts once they have not moved for `quietMs` (writes after a turn: metering, the graph). */
async function settledRows(quietMs = 1500, maxMs = 20_000): Promise<Record<string, number>> {
  const deadline = Date.now() + maxMs
  let last = await rows()
  for (let stable = Date.now(); Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 250))
    const now = await rows()
    if (now.total !== last.total) {
      last = now
      stable = Date.now()
    } else if (Date.now() - stable >= quietMs) return now
  }
  return last
}

/** Runs `tasks` with at most `width` in flight (session creation is not what is measured). */
async function pool<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await task(items[next++]!)
  }))
}

/** Follows a session's stream after `after` until the drain ends. */
async function untilIdle(id: string, after: number, signal: AbortSignal): Promise<void> {
  const res = await fetch(`${dev.url}/v1/sessions/${id}/events?after=${after}`, { headers: await authFor(id), signal })
  if (!res.ok) throw new Error(`events ${id}: HTTP ${res.status}`)
  for await (const message of readSse(res.body!)) if (message.event === 'session.next.drain.ended') return
  throw new Error(`events ${id}: the stream ended before the drain did`)
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

interface Point {
  n: number
  /** CPU used while the turns ran: every workerd process of the `wrangler dev`, and this client. */
  cpuSeconds: { workerd: number; harness: number }
  /** The same N as one request each, all at once, to one object writing one envelope: the machine's limit. */
  limitMs: number[]
  created: number
  turns: number
  unfinished: number
  wallMs: number
  admitMs: number[]
  rows: Record<string, number>
  /** Rows by object class and statement written while the turns ran. */
  statements: Record<string, Record<string, number>>
}

/**
 * The limit admission is measured against, in the same run: one request per session, all at
 * once, through the same gate, each to its own object (a ledger, one per session, written once
 * beforehand so it exists) appending one envelope durably. The same path as a prompt's
 * admission without the session: what the machine gives N concurrent small durable writes.
 */
async function limit(ids: string[], until: number): Promise<number[]> {
  const append = (id: string, i: number, signal?: AbortSignal) =>
    post(id, `/v1/ledgers/${id}/envelopes`, { topic: 'load.limit', type: 'load.limit', payload: { i } }, signal)
  await pool(ids, 32, async (id) => {
    if (Date.now() < until) await append(id, 0)
  })
  const stop = AbortSignal.timeout(LIMIT_MS)
  const times: number[] = []
  await Promise.allSettled(
    ids.map(async (id) => {
      const sent = performance.now()
      await append(id, 1, stop)
      times.push(performance.now() - sent)
    }),
  )
  return times.sort((a, b) => a - b)
}

async function measure(n: number): Promise<Point> {
  // Creating the sessions has its own time bound, and so do their turns.
  const created = Date.now() + LIMIT_MS
  const ids: string[] = []
  await pool(Array.from({ length: n }, (_, i) => `load-${run}-${n}-${i}`), 32, async (id) => {
    if (Date.now() > created) return
    await post(id, '/v1/sessions', { id })
    ids.push(id)
  })
  const limitMs = await limit(ids, created)
  const deadline = Date.now() + LIMIT_MS
  const before = await settledRows()
  const statementsBefore = await statements()
  const admitMs: number[] = []
  let turns = 0
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(new Error('time limit')), Math.max(0, deadline - Date.now()))
  const start = performance.now()
  const cpu = { harness: process.cpuUsage(), workerd: sum(dev.workerdCpuSeconds()) }
  const outcomes = await Promise.allSettled(
    ids.map(async (id) => {
      for (let turn = 0; turn < TURNS; turn++) {
        const sent = performance.now()
        const receipt = (await post(id, `/v1/sessions/${id}/prompt`, { text: `load turn ${turn} of ${id}` }, stop.signal)) as { sequence: number }
        admitMs.push(performance.now() - sent)
        await untilIdle(id, receipt.sequence, stop.signal)
        turns++
      }
    }),
  )
  const wallMs = performance.now() - start
  const used = process.cpuUsage(cpu.harness)
  const cpuSeconds = { harness: (used.user + used.system) / 1e6, workerd: sum(dev.workerdCpuSeconds()) - cpu.workerd }
  clearTimeout(timer)
  const failures = outcomes.filter((o) => o.status === 'rejected')
  const aborted = failures.filter((o) => stop.signal.aborted && (o as PromiseRejectedResult).reason === stop.signal.reason).length
  if (failures.length > aborted) console.error(`N=${n}: ${failures.length - aborted} sessions failed, e.g. ${(failures[0] as PromiseRejectedResult).reason}`)
  const after = await settledRows()
  const delta: Record<string, number> = {}
  for (const key of Object.keys(after)) delta[key] = (after[key] ?? 0) - (before[key] ?? 0)
  const statementsAfter = await statements()
  const byStatement: Record<string, Record<string, number>> = {}
  for (const [name, counts] of Object.entries(statementsAfter)) {
    for (const [what, rows] of Object.entries(counts)) {
      const written = rows - (statementsBefore[name]?.[what] ?? 0)
      if (written !== 0) (byStatement[name] ??= {})[what] = written
    }
  }
  return {
    n,
    limitMs,
    cpuSeconds,
    created: ids.length,
    turns,
    unfinished: failures.length + (n - ids.length),
    wallMs,
    admitMs: admitMs.sort((a, b) => a - b),
    rows: delta,
    statements: byStatement,
  }
}

const pad = (value: string | number, width: number) => String(value).padStart(width)
try {
  console.log(`load: wrangler dev on ${dev.url}, ${TURNS} turns per session (local/echo-1), ${EACH ? 'each session its own principal' : 'one principal owns every session'}, sizes ${SIZES.join(', ')}, ≤ ${LIMIT_MS / 1000} s each`)
  console.log(
    `${pad('N', 6)} ${pad('limit p50', 10)} ${pad('p99 ms', 7)} ${pad('turns', 6)} ${pad('wall s', 7)} ${pad('turns/s', 8)} ${pad('admit p50', 10)} ${pad('p99 ms', 7)} ${pad('p50/limit', 9)} ${pad('rows/turn', 10)}  rows/turn by object`,
  )
  for (const n of SIZES) {
    const point = await measure(n)
    const perTurn = (rows: number) => (point.turns > 0 ? rows / point.turns : Number.NaN)
    const byObject = Object.entries(point.rows)
      .filter(([key, value]) => key !== 'total' && value !== 0)
      .map(([key, value]) => `${key} ${perTurn(value).toFixed(1)}`)
      .join(', ')
    console.log(
      `${pad(n, 6)} ${pad(percentile(point.limitMs, 50).toFixed(1), 10)} ${pad(percentile(point.limitMs, 99).toFixed(1), 7)} ` +
        `${pad(point.turns, 6)} ${pad((point.wallMs / 1000).toFixed(1), 7)} ${pad((point.turns / (point.wallMs / 1000)).toFixed(1), 8)} ` +
        `${pad(percentile(point.admitMs, 50).toFixed(1), 10)} ${pad(percentile(point.admitMs, 99).toFixed(1), 7)} ` +
        `${pad((percentile(point.admitMs, 50) / percentile(point.limitMs, 50)).toFixed(1) + '×', 9)} ` +
        // Unfinished sessions wrote rows for turns not counted: a quotient would overstate the cost.
        (point.unfinished > 0
          ? `${pad('n/a', 10)}  (${point.created} of ${n} sessions created in time, ${point.unfinished} unfinished; ${point.rows.total ?? 0} rows written)`
          : `${pad(perTurn(point.rows.total ?? 0).toFixed(1), 10)}  ${byObject}`),
    )
    const rss = dev.workerdRssMb()
    const { workerd, harness } = point.cpuSeconds
    if (values.statements && point.turns > 0) {
      for (const [name, counts] of Object.entries(point.statements)) {
        console.log(`${pad('', 6)} ${name} rows/turn by statement:`)
        for (const [what, rows] of Object.entries(counts).sort((a, b) => b[1] - a[1])) console.log(`${pad('', 8)} ${pad((rows / point.turns).toFixed(1), 6)}  ${what}`)
      }
    }
    console.log(`${pad('', 6)} while the turns ran: workerd CPU ${workerd.toFixed(1)} s, this client's ${harness.toFixed(1)} s (wall ${(point.wallMs / 1000).toFixed(1)} s); workerd RSS ${rss.join(' + ')} MiB`)
  }
} finally {
  await dev.stop()
}
