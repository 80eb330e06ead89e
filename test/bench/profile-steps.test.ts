/**
 * The profile tools' step cut (bench/profile/summary.ts `stepsOf`), over a hand-made profile: which
 * samples a step keeps, where it ends, and what each kept sample weighs.
 */
import { describe, expect, it } from 'vitest'
import { type CpuProfile, stepsOf, summarize } from '../../bench/profile/summary.ts'

const frame = (functionName: string) => ({ functionName, url: functionName.startsWith('(') ? '' : 'worker.js', lineNumber: 0 })

// (root) ─┬─ webSocketMessage ─── admitPrompt
//         ├─ deliver            (a microtask the admission queued: its caller is not on the stack)
//         ├─ now                (the runner, after the commit)
//         └─ (idle)
const nodes: CpuProfile['nodes'] = [
  { id: 1, callFrame: frame('(root)'), children: [2, 4, 5, 6] },
  { id: 2, callFrame: frame('webSocketMessage'), children: [3] },
  { id: 3, callFrame: frame('admitPrompt') },
  { id: 4, callFrame: frame('deliver') },
  { id: 5, callFrame: frame('now') },
  { id: 6, callFrame: frame('(idle)') },
]

describe('stepsOf', () => {
  it('keeps each admission from its socket message to the runner or the idle thread, and drops steps without the work asked for', () => {
    const profile: CpuProfile = {
      nodes,
      //        idle  admission ───────  runner  ping  idle  admission  idle  deliver (no step open)
      samples: [6, 2, 3, 4, 5, 2, 6, 2, 3, 6, 4],
      timeDeltas: [100, 100, 100, 900, 100, 100, 5000, 100, 100, 100, 100],
    }
    const steps = stepsOf(profile, { begin: 'webSocketMessage', end: ['now'], within: 'admitPrompt' })
    expect(steps.samples).toEqual([3, 2])
    expect(steps.profile.samples).toEqual([2, 3, 4, 2, 3])
    // The median interval, not each sample's own: the late sample (900 µs) would charge its gap to `deliver`.
    expect(steps.interval).toBe(100)
    expect(steps.profile.timeDeltas).toEqual([100, 100, 100, 100, 100])
    const text = summarize(steps.profile, { top: 3, inside: ['admitPrompt', 'deliver', 'webSocketMessage'] })
    expect(text).toContain('sampled 1 ms')
    expect(text).toMatch(/40\.0%\s+0 ms\s+admitPrompt/)
    expect(text).toMatch(/20\.0%\s+0 ms\s+deliver/)
  })

  it('finds no step in a profile where the work never ran', () => {
    const steps = stepsOf({ nodes, samples: [6, 2, 6, 4], timeDeltas: [100, 100, 100, 100] }, { begin: 'webSocketMessage', end: ['now'], within: 'admitPrompt' })
    expect(steps.samples).toEqual([])
    expect(steps.profile.samples).toEqual([])
  })
})
