import { describe, expect, it } from 'vitest'
import { Delegations } from '../../../shell-web/kernel/agent/delegations.ts'

const origin = { endpoint: 'app:relay:tile:t1:instance:1', app: 'relay' }
const holder = { endpoint: 'app:relay:background', session: 7 }

function table() {
  let now = 1_000
  let n = 0
  const tokens = new Delegations(() => now, () => `token-${++n}`)
  return { tokens, advance: (ms: number) => (now += ms) }
}

describe('delegation tokens', () => {
  it('a token is used once, by its holder, and carries the origin and the invocation it was minted under', () => {
    const { tokens } = table()
    const parent = {}
    const minted = tokens.mint(holder, origin, parent)
    expect(minted).toEqual({ token: 'token-1', expiresInMs: 10_000 })
    expect(tokens.redeem('token-1', holder)).toEqual({ origin, parent })
    expect(tokens.redeem('token-1', holder)).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/unknown or already used/) })
  })

  it('expires at 10 s: usable at 9,999 ms, refused at 10,000 ms', () => {
    const { tokens, advance } = table()
    tokens.mint(holder, origin, {})
    tokens.mint(holder, origin, {})
    advance(9_999)
    expect(tokens.redeem('token-1', holder)).toHaveProperty('origin')
    advance(1)
    expect(tokens.redeem('token-2', holder)).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/expired/) })
  })

  it('another endpoint, or another session of the same endpoint, cannot use it, and does not spend it', () => {
    const { tokens } = table()
    tokens.mint(holder, origin, {})
    expect(tokens.redeem('token-1', { endpoint: 'app:relay:tile:t2:instance:9', session: 7 })).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/another endpoint/) })
    expect(tokens.redeem('token-1', { ...holder, session: 8 })).toMatchObject({ code: 'DELEGATION_INVALID', message: expect.stringMatching(/another session/) })
    expect(tokens.redeem('token-1', holder)).toHaveProperty('origin')
  })

  it('at most 4 pending per endpoint session and 64 overall, refused with retryAfterMs until one is used or expires', () => {
    const { tokens, advance } = table()
    for (let i = 0; i < 4; i++) expect(tokens.mint(holder, origin, {})).toHaveProperty('token')
    advance(2_500)
    expect(tokens.mint(holder, origin, {})).toMatchObject({ code: 'DELEGATION_LIMIT', retryAfterMs: 7_500, message: expect.stringMatching(/per endpoint/) })
    expect(tokens.mint({ ...holder, session: 8 }, origin, {})).toHaveProperty('token') // a new session has its own four
    expect(tokens.redeem('token-1', holder)).toHaveProperty('origin')
    expect(tokens.mint(holder, origin, {})).toHaveProperty('token')
    for (let s = 100; tokens.pending() < 64; s++) tokens.mint({ endpoint: `e${s}`, session: s }, origin, {})
    expect(tokens.mint({ endpoint: 'e-last', session: 999 }, origin, {})).toMatchObject({ code: 'DELEGATION_LIMIT', message: expect.stringMatching(/in the shell/) })
    advance(10_000)
    expect(tokens.pending()).toBe(0)
    expect(tokens.mint({ endpoint: 'e-last', session: 999 }, origin, {})).toHaveProperty('token')
  })

  it('tokens go with the invocation they were minted under and with their session', () => {
    const { tokens } = table()
    const [a, b] = [{}, {}]
    tokens.mint(holder, origin, a)
    tokens.mint(holder, origin, b)
    tokens.mint({ endpoint: 'x', session: 9 }, origin, b)
    tokens.parentEnded(a)
    expect(tokens.redeem('token-1', holder)).toMatchObject({ code: 'DELEGATION_INVALID' })
    tokens.sessionEnded(7)
    expect(tokens.redeem('token-2', holder)).toMatchObject({ code: 'DELEGATION_INVALID' })
    expect(tokens.pending()).toBe(1)
  })
})
