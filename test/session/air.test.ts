import { describe, expect, it } from 'vitest'
import { AirBuffer } from '../../objects/session/events/air.ts'
import type { Delta } from '../../objects/session/events/air.ts'

describe('AirBuffer', () => {
  it('gathers deltas and sends them at most once per interval, in a fixed order', () => {
    const sent: Delta[] = []
    const air = new AirBuffer('s1', (d) => sent.push(d), 25)
    const turn = { text: '', reasoning: '' }
    turn.reasoning += 'thinking '
    turn.text += 'Hel'
    air.addToolInput('c1', '', 'search')
    air.addToolInput('c1', '{"q":')
    air.flushIfDue(turn, 1000)
    turn.text += 'lo'
    air.flushIfDue(turn, 1010) // within the interval: held
    expect(sent).toEqual([
      { type: 'reasoning-delta', step: 's1', text: 'thinking ' },
      { type: 'text-delta', step: 's1', text: 'Hel' },
      { type: 'tool-input-delta', step: 's1', toolCallId: 'c1', name: 'search', delta: '{"q":' },
    ])
    air.flushIfDue(turn, 1030)
    expect(sent.at(-1)).toEqual({ type: 'text-delta', step: 's1', text: 'lo' })
    air.flush(turn)
    expect(sent).toHaveLength(4) // nothing left to send
  })
})
