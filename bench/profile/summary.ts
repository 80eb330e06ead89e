/**
 * What a V8 CPU profile (`Profiler.stop`) and a sampling heap profile (`HeapProfiler.stopSampling`)
 * say, as text: self time by function and by script, time inside named functions (each sample
 * counted once, under the innermost name it has on its stack), and bytes allocated by function.
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
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
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

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value)
}
