import { describe, expect, it } from 'vitest'
import { AttachmentBudget, checkAttachment } from '../../../shell-web/kernel/bus/attachments.ts'

const MiB = 1024 * 1024

describe('attachments', () => {
  it('accepts one ArrayBuffer of at most 16 MiB, nothing else', () => {
    expect(checkAttachment(new ArrayBuffer(16 * MiB))).toEqual({ bytes: 16 * MiB })
    expect(checkAttachment(new ArrayBuffer(16 * MiB + 1))).toMatchObject({ code: 'ATTACHMENT_TOO_LARGE' })
    expect(checkAttachment(new Uint8Array(4))).toMatchObject({ code: 'BAD_REQUEST' })
    expect(checkAttachment(new ArrayBuffer(4, { maxByteLength: 8 }))).toMatchObject({ code: 'BAD_REQUEST' })
    expect(checkAttachment('bytes')).toMatchObject({ code: 'BAD_REQUEST' })
  })

  it('holds at most 32 MiB per endpoint and 64 MiB overall, refusing with a true retryAfterMs; releasing frees it', () => {
    let now = 0
    const budget = new AttachmentBudget(32 * MiB, 64 * MiB, () => now)
    const [a, b, c] = [{}, {}, {}]
    const hold = (owner: object, app: string, bytes: number, until = 10_000) => ({ owner, app, bytes, until })
    const a1 = hold(a, 'one', 32 * MiB, 4_000)
    expect(budget.reserve(a1)).toBeNull()
    // Over its own 32 MiB: retry when its hold ends at the latest, not a guess.
    now = 1_000
    expect(budget.reserve(hold(a, 'one', 1))).toMatchObject({ code: 'ATTACHMENT_BUDGET', retryAfterMs: 3_000 })
    const b1 = hold(b, 'two', 32 * MiB, 9_000)
    expect(budget.reserve(b1)).toBeNull()
    expect(budget.held()).toBe(64 * MiB)
    // A third app wants more than its share of a full budget (64 MiB over 3 apps): refused, told when room is freed.
    expect(budget.reserve(hold(c, 'three', 32 * MiB))).toMatchObject({ code: 'ATTACHMENT_BUDGET', retryAfterMs: 3_000 })
    budget.release(a1)
    expect(budget.held(a)).toBe(0)
    expect(budget.reserve(hold(c, 'three', 1))).toBeNull()
    expect(budget.held()).toBe(32 * MiB + 1)
  })

  it('no app keeps more than its share while another waits: the oldest holds of apps over theirs are ended', () => {
    const budget = new AttachmentBudget(32 * MiB, 64 * MiB, () => 0)
    const ended: string[] = []
    const holds = ['h1', 'h2', 'h3', 'h4'].map((name, i) => {
      const h = { owner: { name }, app: i < 2 ? 'one' : 'two', bytes: 16 * MiB, until: 300_000, revoke: () => (ended.push(name), budget.release(h)) }
      return h
    })
    for (const h of holds) expect(budget.reserve(h)).toBeNull()
    expect(budget.held()).toBe(64 * MiB)
    // A third app asks for 16 MiB (within its share, 64/3): the oldest hold of an app over its share ends.
    expect(budget.reserve({ owner: {}, app: 'three', bytes: 16 * MiB, until: 1_000 })).toBeNull()
    expect(ended).toEqual(['h1'])
    expect(budget.held()).toBe(64 * MiB)
    // Holds without a way to end them early are never taken (an answer's attachment, handed on at once).
    const fixed = new AttachmentBudget(32 * MiB, 32 * MiB, () => 0)
    expect(fixed.reserve({ owner: {}, app: 'one', bytes: 32 * MiB, until: 5_000 })).toBeNull()
    expect(fixed.reserve({ owner: {}, app: 'two', bytes: 1, until: 5_000 })).toMatchObject({ code: 'ATTACHMENT_BUDGET', retryAfterMs: 5_000 })
  })
})
