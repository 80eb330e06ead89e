import { describe, expect, it } from 'vitest'
import { layout } from '../../../shell-web/ui/orchestrations/layout.ts'

describe('orchestration view layout', () => {
  it('puts each package one column after its deepest need, stacked in plan order', () => {
    const placed = layout([
      { id: 'a', needs: [] },
      { id: 'b', needs: ['a'] },
      { id: 'c', needs: ['a'] },
      { id: 'd', needs: ['b', 'c'] },
      { id: 'e', needs: ['a', 'd'] },
      { id: 'solo', needs: [] },
    ])
    expect([...placed.values()].map((p) => [p.id, p.column, p.row])).toEqual([
      ['a', 0, 0],
      ['b', 1, 0],
      ['c', 1, 1],
      ['d', 2, 0],
      ['e', 3, 0],
      ['solo', 0, 1],
    ])
  })

  it('a malformed view (a cycle, a missing need) still lays out instead of looping', () => {
    const placed = layout([
      { id: 'x', needs: ['y', 'ghost'] },
      { id: 'y', needs: ['x'] },
    ])
    expect(placed.size).toBe(2)
  })
})
