/**
 * A schedule's fire against the admission it stands for (docs/benchmarks.md#schedules): the same
 * prompt admitted to the same session object, once by the `schedules` timer's alarm (dispatched with
 * `runDurableObjectAlarm`: the fold's due schedule planned, the prompt admitted under its derived
 * id, the `schedule.fired` event written) and once over HTTP (`POST /v1/sessions/{id}/prompt`
 * through the real gate, token signed once). Interleaved, one of each per round, each timed to the
 * reply that follows its admission's commit, each meeting an idle session (the turn it starts runs
 * after the reply). The object reads a clock a year ahead that each round moves one interval on,
 * so exactly one fire is due per alarm.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { bearer } from '../../test/support/auth.ts'
import { events, newSession, postJson, waitIdle } from '../../test/support/session.ts'
import { median } from '../support/compare.ts'

const ROUNDS = 100
const MIN = 60_000

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!
const ms = (n: number) => `${n.toFixed(2)} ms`

describe('schedules', () => {
  it('alarm fire → prompt admitted, against the same prompt admitted over HTTP', async () => {
    const { id, stub } = await newSession('bench-sched')
    const clock = { now: Math.ceil((Date.now() + 365 * 24 * 3_600_000) / MIN) * MIN }
    await runInDurableObject(stub, (object: SessionObject) => {
      ;(object as unknown as { clock: () => number }).clock = () => clock.now
    })
    const text = 'the hourly check'
    expect((await postJson(`/v1/sessions/${id}/schedules`, { id: 'tick', when: { kind: 'every', seconds: 60 }, prompt: { text } })).status).toBe(201)
    const headers = { ...(await bearer('ada')), 'content-type': 'application/json' }
    const http: number[] = []
    const alarm: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      clock.now += MIN
      // Each admission meets an idle session, as a fire between turns does: the turn it starts runs after the reply.
      await waitIdle(id)
      let started = performance.now()
      expect(await runDurableObjectAlarm(stub)).toBe(true)
      alarm.push(performance.now() - started)
      await waitIdle(id)
      started = performance.now()
      const res = await exports.default.fetch(`http://neuron/v1/sessions/${id}/prompt`, { method: 'POST', headers, body: JSON.stringify({ id: `http-${round}`, text }) })
      expect(res.status).toBe(202)
      http.push(performance.now() - started)
    }
    const admitted = (await events(id)).filter((e) => e.type === 'session.next.admitted')
    expect(admitted).toHaveLength(2 * ROUNDS)
    const ratio = median(alarm) / median(http)
    console.log(`\nschedule fire vs HTTP admission of the same prompt, ${ROUNDS} rounds interleaved`)
    console.log(`  HTTP POST …/prompt (limit)   p50 ${ms(median(http))}   p90 ${ms(pct(http, 0.9))}`)
    console.log(`  alarm → fire → admitted      p50 ${ms(median(alarm))}   p90 ${ms(pct(alarm, 0.9))}`)
    console.log(`  ratio (p50)                  ${ratio.toFixed(2)}×   (target ≤ 1.2)`)
    expect(ratio).toBeLessThanOrEqual(1.2)
  })
})
