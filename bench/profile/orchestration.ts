/**
 * `npm run profile:orchestration -- [packages]`: where an orchestration's run spends the thread, and
 * how long it holds it at a time. Under `wrangler dev` (every object on one thread, the local model
 * in process) it runs a chain of `packages` (default 200) packages that only declare and report,
 * takes a V8 CPU profile of the whole run through the inspector, and prints the time inside the
 * run's main parts and the busy stretches between two idle samples: the longest of these is what
 * another request can wait behind. Another principal's `/health` is sampled meanwhile.
 *
 * Writes the profile to the temp folder for DevTools. The sampler costs time of its own, so read
 * shares and stretch lengths from it, and durations from test/process/orchestration-load.test.ts.
 * `wrangler dev`'s trace collector is off unless `NEURON_BENCH_DEV_TRACES=1` (it doubles the run's
 * CPU; see docs/orchestration.md, "Sharing the thread").
 */
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspectorSession } from '../../test/support/inspector.ts'
import { devToken, startWrangler } from '../../test/support/wrangler.ts'
import { type CpuProfile, summarize } from './summary.ts'

const packages = Number(process.argv[2] ?? 200)
/** µs between samples asked for: the stretches worth seeing last milliseconds. */
const SAMPLING_US = 200

process.env.X_LOCAL_OBSERVABILITY = process.env.NEURON_BENCH_DEV_TRACES === '1' ? 'true' : 'false'
const dev = await startWrangler()
try {
  const owner = { authorization: `Bearer ${await devToken('profile')}`, 'content-type': 'application/json' }
  const other = { authorization: `Bearer ${await devToken('profile-bystander')}` }
  await (await fetch(`${dev.url}/health`)).text()
  const cdp = await inspectorSession(dev.inspectorPort)
  await cdp.call('Profiler.enable')
  await cdp.call('Profiler.setSamplingInterval', { interval: SAMPLING_US })
  await cdp.call('Profiler.start')
  const plan = Array.from({ length: packages }, (_, i) => ({
    id: `p${i}`,
    needs: i === 0 ? [] : [`p${i - 1}`],
    instructions: [`/beat declare /tool declare {"writes":["file:p${i}"]}`, `/beat execute /tool report {"result":"p${i}"}`].join('\n'),
  }))
  let running = true
  const health: number[] = []
  const bystander = (async () => {
    while (running) {
      const began = performance.now()
      await (await fetch(`${dev.url}/health`, { headers: other })).text()
      health.push(performance.now() - began)
      await new Promise((r) => setTimeout(r, 50))
    }
  })()
  const began = performance.now()
  const created = await fetch(`${dev.url}/v1/orchestrations`, { method: 'POST', headers: owner, body: JSON.stringify({ id: 'profiled', goal: 'a chain', plan }) })
  const createMs = performance.now() - began
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`)
  for (;;) {
    const view = (await (await fetch(`${dev.url}/v1/orchestrations/profiled`, { headers: owner })).json()) as { status: string }
    if (view.status !== 'running') break
    await new Promise((r) => setTimeout(r, 250))
  }
  const runMs = performance.now() - began
  running = false
  await bystander
  const { profile } = (await cdp.call('Profiler.stop', {}, 120_000)) as { profile: CpuProfile }
  cdp.close()
  const path = join(tmpdir(), 'neuron-orchestration.cpuprofile')
  writeFileSync(path, JSON.stringify(profile))
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!
  console.log(`orchestration profile: ${packages} packages in ${(runMs / 1000).toFixed(1)} s, create answered in ${createMs.toFixed(0)} ms`)
  console.log(`another principal's /health: n ${health.length}, p50 ${q(health, 0.5).toFixed(0)} ms, p99 ${q(health, 0.99).toFixed(0)} ms`)
  const held = stretches(profile)
  console.log(`the thread held between idle samples: ${held.length} stretches, p50 ${q(held, 0.5).toFixed(0)} ms, p99 ${q(held, 0.99).toFixed(0)} ms, longest ${Math.max(...held).toFixed(0)} ms`)
  console.log(
    summarize(profile, {
      top: 15,
      inside: ['advance', 'receiveInput', 'deliver', 'receiveAgentMessage', 'drain', 'migrate', 'applyChain', 'register', '(garbage collector)', '(program)', '(idle)'],
    }),
  )
  console.log(`profile: ${path}`)
} finally {
  await dev.stop()
}

/** The lengths (ms) of the runs of samples with no idle sample among them. */
function stretches(profile: CpuProfile): number[] {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id))
  const out: number[] = []
  let current = 0
  profile.samples.forEach((id, i) => {
    if (idle.has(id)) {
      if (current > 0) out.push(current / 1000)
      current = 0
    } else current += profile.timeDeltas[i] ?? 0
  })
  if (current > 0) out.push(current / 1000)
  return out
}
