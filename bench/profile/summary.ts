/**
 * What a V8 CPU profile (`Profiler.stop`) and a sampling heap profile (`HeapProfiler.stopSampling`)
 * say, as text: self time by function and by script, time inside named functions (each sample
 * counted once, under the innermost name it has on its stack), bytes allocated by function, and
 * the steps of one kind cut out of a profile (`stepsOf`), so one step's parts can be read alone.
 */

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}
/** The parts of a `Profiler.Profile` read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
}
/** The parts of a `HeapProfiler.SamplingHeapProfile` read here. */
export interface HeapProfile {
  head: HeapNode
}
interface HeapNode {
  callFrame: CallFrame
  selfSize: number
  children: HeapNode[]
}

const where = (frame: CallFrame) => `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`

/**
 * @example
 * console.log(summarize(profile, { top: 10, inside: ['push', 'append'] }))
 */
export function summarize(profile: CpuProfile, options: { top: number; inside: string[] }): string {
  const { byId, parent } = treeOf(profile)
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const byFunction = new Map<string, number>()
  const byScript = new Map<string, number>()
  const inside = new Map(options.inside.map((name) => [name, 0]))
  for (const [id, time] of self) {
    const frame = byId.get(id)!.callFrame
    add(byFunction, where(frame), time)
    add(byScript, frame.url.split('/').slice(-2).join('/') || frame.functionName, time)
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at)!.callFrame.functionName
      if (inside.has(name)) {
        add(inside, name, time)
        break
      }
    }
  }
  const table = (rows: Map<string, number>, top: number) =>
    [...rows]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => `  ${((100 * time) / total).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(6)} ms  ${name}`)
      .join('\n')
  return [
    `sampled ${(total / 1000).toFixed(0)} ms`,
    'self time by function:',
    table(byFunction, options.top),
    'self time by script:',
    table(byScript, 6),
    'inside (innermost of these names on the stack):',
    table(inside, options.inside.length),
  ].join('\n')
}

/** The samples of the steps a profile holds, as a profile of their own, and how many each step had. */
export interface Steps {
  /** Each sample weighted by the profile's median interval: see `stepsOf`. */
  profile: CpuProfile
  /** Samples per step, in the order the steps ran. */
  samples: number[]
  /** The profile's median µs between samples. */
  interval: number
}

/**
 * Cuts the steps of one kind out of a profile: a step begins at a sample with `begin` on its stack
 * and runs until an idle sample or one with any of `end` on its stack (the work that follows the
 * step, kept out of it). A step counts only if some sample of it has `within` on its stack.
 *
 * Each kept sample weighs the profile's median interval, not its own: on a busy machine the
 * sampler runs late (here 25 µs asked, ~110 µs got, with gaps of milliseconds), and a late sample's
 * own interval would charge the gap to whatever function it happened to land in.
 *
 * @example
 * const admissions = stepsOf(profile, { begin: 'webSocketMessage', end: ['now'], within: 'admitPrompt' })
 * console.log(summarize(admissions.profile, { top: 10, inside: ['admitPrompt'] }))
 */
export function stepsOf(profile: CpuProfile, options: { begin: string; end: string[]; within: string }): Steps {
  const { byId, parent } = treeOf(profile)
  const names = (id: number) => {
    const stack = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.add(byId.get(at)!.callFrame.functionName)
    return stack
  }
  const interval = [...profile.timeDeltas].sort((a, b) => a - b)[profile.timeDeltas.length >> 1] ?? 0
  const kept: CpuProfile = { nodes: profile.nodes, samples: [], timeDeltas: [] }
  const samples: number[] = []
  let step: { samples: number[]; within: boolean } | null = null
  const close = () => {
    if (step?.within) {
      kept.samples.push(...step.samples)
      samples.push(step.samples.length)
    }
    step = null
  }
  for (const id of profile.samples) {
    const stack = names(id)
    if (stack.has('(idle)') || options.end.some((name) => stack.has(name))) {
      close()
      continue
    }
    if (!step && !stack.has(options.begin)) continue
    step ??= { samples: [], within: false }
    step.samples.push(id)
    step.within ||= stack.has(options.within)
  }
  close()
  kept.timeDeltas = kept.samples.map(() => interval)
  return { profile: kept, samples, interval }
}

/**
 * Bytes allocated by function over the sampling (with the objects collected since included when the
 * sampling was started with `includeObjectsCollectedByMinorGC/MajorGC`).
 *
 * @example
 * console.log(allocations(heap, 10))
 */
export function allocations(profile: HeapProfile, top: number): string {
  const bytes = new Map<string, number>()
  let total = 0
  const walk = (node: HeapNode) => {
    total += node.selfSize
    add(bytes, where(node.callFrame), node.selfSize)
    node.children.forEach(walk)
  }
  walk(profile.head)
  const rows = [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)
  return [`allocated ${(total / 1e6).toFixed(1)} MB (sampled)`, ...rows.map(([name, size]) => `  ${(size / 1e6).toFixed(2).padStart(7)} MB  ${name}`)].join('\n')
}

/** The profile's call tree, walkable from any sample up to the root. */
function treeOf(profile: CpuProfile): { byId: Map<number, CpuProfile['nodes'][number]>; parent: Map<number, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  return { byId, parent }
}

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value)
}
