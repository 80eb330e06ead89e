/**
 * `npm run profile:runner -- [mode] [turns]`: a CPU profile of the runner bench's work inside workerd,
 * taken through `wrangler dev`'s inspector (Chrome DevTools Protocol), plus what it allocated. The
 * benchmark says how long a turn takes against its limit; this says where the time goes, so a change
 * is aimed at what the profile shows rather than at a guess.
 *
 * - mode: `turn` (default), `parse`, `stream` or `preparsed` (see runner-worker.ts)
 * - turns: profiled runs (default 200), 20 per session object as the bench has them, after 20 unprofiled
 * Prints the top self times, the time inside the turn's main parts and the top allocations; writes the
 * profiles to the temp folder for DevTools (`.cpuprofile`, `.heapprofile`). The sampler costs time of
 * its own (a profiled turn runs ~2× slower), so read shares from it, and durations from the bench.
 */
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspectorSession } from '../../test/support/inspector.ts'
import { startWrangler } from '../../test/support/wrangler.ts'
import type { Mode } from './runner-worker.ts'
import { allocations, type CpuProfile, type HeapProfile, summarize } from './summary.ts'

const mode = (process.argv[2] ?? 'turn') as Mode
const turns = Number(process.argv[3] ?? 200)
const PER_OBJECT = 20
/** µs between samples: fine enough to see a 60 KB append, coarse enough not to double a turn. */
const SAMPLING_US = 50

const dev = await startWrangler({ script: 'bench/profile/runner-worker.ts' })
try {
  const run = async (n: number, object: string) =>
    ((await (await fetch(`${dev.url}/__profile/runner?mode=${mode}&n=${n}&object=${object}`)).json()) as { msPerRun: number }).msPerRun
  const unprofiled = await run(PER_OBJECT, 'warm')
  const cdp = await inspectorSession(dev.inspectorPort)
  await cdp.call('Profiler.enable')
  await cdp.call('Profiler.setSamplingInterval', { interval: SAMPLING_US })
  await cdp.call('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
  await cdp.call('Profiler.start')
  const profiled: number[] = []
  for (let done = 0; done < turns; done += PER_OBJECT) profiled.push(await run(Math.min(PER_OBJECT, turns - done), `profiled-${done}`))
  const { profile } = (await cdp.call('Profiler.stop', {}, 60_000)) as { profile: CpuProfile }
  const { profile: heap } = (await cdp.call('HeapProfiler.stopSampling', {}, 60_000)) as { profile: HeapProfile }
  cdp.close()
  const base = join(tmpdir(), `neuron-runner-${mode}`)
  writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile))
  writeFileSync(`${base}.heapprofile`, JSON.stringify(heap))
  const mean = profiled.reduce((a, b) => a + b, 0) / profiled.length
  console.log(`runner profile, mode ${mode}: ${turns} runs; ${unprofiled.toFixed(2)} ms per run unprofiled, ${mean.toFixed(2)} ms profiled`)
  // The turn's parts, by the functions they run in (a provider turn's loop is `runTurn`, its durable events `append`).
  console.log(summarize(profile, { top: 12, inside: ['push', 'read', 'streamModelBatches', 'append', 'messages', 'keepArtifact', 'runTurn', 'step', 'drain', '(garbage collector)', '(program)', '(idle)'] }))
  console.log(allocations(heap, 10))
  console.log(`profiles: ${base}.cpuprofile, ${base}.heapprofile`)
} finally {
  await dev.stop()
}
