import { describe, expect, it } from 'vitest'
import { Backlog } from '../../../shell-web/kernel/bus/backlog.ts'
import { DialogGate } from '../../../shell-web/kernel/consent/dialog-gate.ts'

describe('backlog', () => {
  it('counts an endpoint’s messages until its probe comes back: past the limit it is flooding', () => {
    const probes: (() => void)[] = []
    const backlog = new Backlog<string>((done) => probes.push(done), 3)
    expect([1, 2, 3].map(() => backlog.take('flood'))).toEqual([true, true, true])
    expect(backlog.take('quiet')).toBe(true)
    expect(backlog.take('flood')).toBe(false) // the 4th waiting at once
    expect(probes).toHaveLength(2)
    probes.shift()!() // the flood's probe came back: a new count starts with its next message
    expect(backlog.take('flood')).toBe(true)
    expect(probes).toHaveLength(2)
  })
})

describe('dialog gate', () => {
  const allow = { inApp: async () => ({ allow: true as const }), spend: () => {} }
  it('needs the person’s gesture in the asking app', async () => {
    let spent = 0
    const gate = new DialogGate({ inApp: async (app) => ({ allow: false, code: 'USER_ACTIVATION_REQUIRED', message: `not ${app}` }), spend: () => spent++ })
    expect(await gate.admit('bg')).toMatchObject({ code: 'USER_ACTIVATION_REQUIRED', message: 'not bg' })
    expect(spent).toBe(0)
  })

  it('a dialog it admits uses the gesture up; one refused for backing off does not', async () => {
    let spent = 0
    const gate = new DialogGate({ inApp: async () => ({ allow: true as const }), spend: () => spent++ }, () => 0)
    expect(await gate.admit('app')).toBeNull()
    expect(spent).toBe(1)
    expect(gate.admitChecked('other')).toBeNull()
    expect(spent).toBe(2)
    gate.answered('app', false)
    expect(await gate.admit('app')).toMatchObject({ code: 'BACKING_OFF' })
    expect(gate.admitChecked('app')).toMatchObject({ code: 'BACKING_OFF' })
    expect(spent).toBe(2)
  })

  it('remembers a dismissed dialog: the app backs off, longer each time, until one is accepted', async () => {
    let now = 0
    const gate = new DialogGate(allow, () => now)
    expect(await gate.admit('app')).toBeNull()
    gate.answered('app', false)
    expect(await gate.admit('app')).toMatchObject({ code: 'BACKING_OFF', retryAfterMs: 10_000 })
    expect(await gate.admit('other')).toBeNull() // per app
    now = 10_000
    expect(await gate.admit('app')).toBeNull()
    gate.answered('app', false)
    expect(gate.backoff('app')).toMatchObject({ retryAfterMs: 60_000, message: expect.stringMatching(/last 2 requests/) })
    now = 70_000
    gate.answered('app', true)
    expect(gate.backoff('app')).toBeNull()
  })
})
