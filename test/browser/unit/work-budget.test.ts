import { describe, expect, it } from 'vitest'
import { WorkBudget } from '../../../shell-web/kernel/work-budget.ts'

describe('work budget', () => {
  it("charges an app's checking time, refuses it once spent, and refills at its share of wall time", () => {
    let now = 0
    const work = new WorkBudget(20, 0.25, () => now)
    const spend = (ms: number) => work.meter('h', (allowance) => ((now += ms), allowance))
    expect(spend(15)).toEqual({ ok: true, value: 20 })
    expect(spend(15)).toEqual({ ok: true, value: 8.75 }) // 5 ms left + 15 ms × 25 % refilled; it overruns
    const refused = spend(1)
    expect(refused).toMatchObject({ ok: false })
    expect(refused.ok ? 0 : refused.retryAfterMs).toBe(11) // 2.5 ms of debt at a 25 % share
    expect(work.meter('other', (allowance) => allowance)).toEqual({ ok: true, value: 20 }) // others untouched
    now += 11
    expect(spend(0)).toMatchObject({ ok: true })
    now += 10_000
    expect(work.left('h')).toBe(20) // never more than one burst
  })
})
