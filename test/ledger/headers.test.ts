import { describe, expect, it } from 'vitest'
import { current, history, inject } from '../../objects/ledger/headers.ts'

describe('inject-only headers', () => {
  it('appends without touching the input, and folds last-wins', () => {
    const first = inject([], 'priority', 'low')
    const second = inject(first, 'owner', 'ada')
    const third = inject(second, 'priority', 'high', { reason: 'customer escalated' })
    expect(first).toHaveLength(1)
    expect(second).toHaveLength(2)
    expect(current(third, 'priority')).toBe('high')
    expect(current(third, 'owner')).toBe('ada')
    expect(current(third, 'missing')).toBeUndefined()
  })

  it('keeps the evolution of a key, in causal order, with reasons', () => {
    let headers = inject([], 'route', 'a')
    headers = inject(headers, 'other', 1)
    headers = inject(headers, 'route', 'b', { reason: 'a was down' })
    headers = inject(headers, 'route', 'a', { reason: 'a recovered', ref: 'route@1' })
    expect(history(headers, 'route')).toEqual([
      { key: 'route', value: 'a' },
      { key: 'route', value: 'b', reason: 'a was down' },
      { key: 'route', value: 'a', reason: 'a recovered', ref: 'route@1' },
    ])
    expect(headers.map((h) => h.key)).toEqual(['route', 'other', 'route', 'route'])
  })
})
