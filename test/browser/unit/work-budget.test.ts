import { describe, expect, it } from 'vitest'
import { WorkBudget } from '../../../shell-web/kernel/bus/work-budget.ts'

describe('work budget', () => {
  it("charges an app's checking time, refuses it once spent, and refills at its share of wall time", () => {
    let now = 0
    const work = new WorkBudget(20, 0.25, () => now)
    work.meter('other', () => 0) // another app is using the kernel too
    const spend = (ms: number) => work.meter('h', () => void (now += ms))
    expect(spend(15)).toMatchObject({ ok: true })
    expect(work.left('h')).toBe(8.75) // 20 − 15, plus 15 ms × 25 % refilled
    expect(spend(15)).toMatchObject({ ok: true }) // 5 ms left + 15 ms × 25 % refilled; it overruns
    const refused = spend(1)
    expect(refused).toMatchObject({ ok: false })
    expect(refused.ok ? 0 : refused.retryAfterMs).toBe(11) // 2.5 ms of debt at a 25 % share
    expect(work.meter('other', () => work.left('other'))).toEqual({ ok: true, value: 20 }) // others untouched
    now += 11
    expect(spend(0)).toMatchObject({ ok: true })
    now += 10_000
    expect(work.left('h')).toBe(20) // never more than one burst
  })

  it('an app alone may use all the time there is: nobody is waiting', () => {
    let now = 0
    const work = new WorkBudget(20, 0.25, () => now)
    for (let i = 0; i < 10; i++) expect(work.meter('bench', () => void (now += 15)).ok).toBe(true)
    expect(work.left('bench')).toBeLessThan(0)
    work.meter('other', () => 0)
    expect(work.meter('bench', () => 0).ok).toBe(false)
    now += 1_001 + 1_000 // the other app went quiet a second ago
    expect(work.meter('bench', () => 0).ok).toBe(true)
  })
})
