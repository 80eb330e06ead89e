/**
 * A lasting sign-in's token renewal (shell-web/agent/authorization.ts), with the timer and the
 * network replaced: the token is renewed a minute before it expires, every call after carries the
 * new one, and a refused renewal ends the sign-in with the server's code, once.
 */
import { describe, expect, it } from 'vitest'
import { Authorization, type EndedReason, RENEW_BEFORE_MS } from '../../../shell-web/agent/authorization.ts'

/** An unsigned JWT-shaped token expiring at `exp` (epoch s): the shell only reads its `exp`. */
const tokenAt = (exp: number, n: number) => `h.${btoa(JSON.stringify({ exp, n })).replaceAll('=', '')}.s`

function clock(start: number) {
  let now = start
  const timers: { at: number; fn: () => void }[] = []
  return {
    now: () => now,
    schedule: (fn: () => void, ms: number) => {
      const timer = { at: now + ms, fn }
      timers.push(timer)
      return () => void timers.splice(timers.indexOf(timer), 1)
    },
    /** Runs the timers due by `to`. */
    async advance(to: number) {
      now = to
      for (const due of timers.filter((t) => t.at <= to)) {
        timers.splice(timers.indexOf(due), 1)
        due.fn()
        await new Promise((r) => setTimeout(r, 0))
      }
    },
    pending: () => timers.map((t) => t.at),
  }
}

describe('renewing a lasting sign-in', () => {
  it('renews a minute before expiry; calls carry the newest token', async () => {
    const t0 = 1_000_000_000_000
    const c = clock(t0)
    const sent: string[] = []
    let renewals = 0
    const ended: EndedReason[] = []
    const authorization = new Authorization(tokenAt(t0 / 1000 + 900, 0), {
      onEnded: (why) => ended.push(why),
      now: c.now,
      schedule: c.schedule,
      fetch: async (_input, init) => (sent.push(new Headers(init?.headers).get('authorization')!), new Response('{}')),
      renew: async () => tokenAt(c.now() / 1000 + 900, ++renewals),
    })
    expect(c.pending()).toEqual([t0 + 900_000 - RENEW_BEFORE_MS])
    await authorization.fetch('/v1/me', { headers: { authorization: 'Bearer stale' } })
    await c.advance(t0 + 900_000 - RENEW_BEFORE_MS)
    expect(renewals).toBe(1)
    await authorization.fetch('/v1/me', { headers: { authorization: 'Bearer stale' } })
    expect(sent).toEqual([`Bearer ${tokenAt(t0 / 1000 + 900, 0)}`, `Bearer ${authorization.token}`])
    expect(authorization.token).toBe(tokenAt((t0 + 900_000 - RENEW_BEFORE_MS) / 1000 + 900, 1))
    expect(ended).toEqual([])
  })

  it('a refused renewal ends the sign-in with the server\'s code, once', async () => {
    const t0 = 1_000_000_000_000
    const c = clock(t0)
    const ended: EndedReason[] = []
    new Authorization(tokenAt(t0 / 1000 + 120, 0), {
      onEnded: (why) => ended.push(why),
      now: c.now,
      schedule: c.schedule,
      renew: async () => Promise.reject(Object.assign(new Error('this sign-in was ended (signed out)'), { code: 'REFRESH_REVOKED' })),
    })
    await c.advance(t0 + 120_000)
    expect(ended).toHaveLength(1)
    expect(ended[0]!.code).toBe('REFRESH_REVOKED')
    expect(c.pending()).toEqual([])
  })
})
