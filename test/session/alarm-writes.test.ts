/**
 * Alarm writes per turn: storage bills an alarm write like a row, so the timers a turn moves
 * (objects/core/timers.ts: the session's watchdog) must not write the alarm more than the
 * watchdog's own rule asks: once when the turn's admission arms it, and not again within the
 * half window, whatever the turn's length in tokens.
 */
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { newSession, postJson, waitIdle } from '../support/session.ts'

/** Counts the alarm writes the object makes until `read` is called. */
const counters = new Map<string, { writes: number[]; restore(): void }>()

async function countAlarms(name: string, stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_object: unknown, ctx: DurableObjectState) => {
    const storage = ctx.storage
    const setAlarm = storage.setAlarm
    const writes: number[] = []
    storage.setAlarm = (at: number | Date, options?: DurableObjectSetAlarmOptions) => {
      writes.push(Number(at))
      return setAlarm.call(storage, at, options)
    }
    counters.set(name, { writes, restore: () => void (storage.setAlarm = setAlarm) })
  })
}

async function alarmWrites(name: string, stub: DurableObjectStub): Promise<number> {
  return runInDurableObject(stub, () => {
    const counter = counters.get(name)!
    counter.restore()
    return counter.writes.length
  })
}

describe('alarm writes per turn', () => {
  it('a one-step turn writes the alarm once, at its admission; a second turn within the half window writes it not at all', async () => {
    const { id, stub } = await newSession('alarms')
    await countAlarms('first', stub)
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'a1', text: 'say something short' })
    await waitIdle(id)
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'a2', text: '/tokens 2000' })
    await waitIdle(id)
    console.log('alarm writes over two turns:', counters.get('first')!.writes.length)
    expect(await alarmWrites('first', stub)).toBe(1)
  })
})
