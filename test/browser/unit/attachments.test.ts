import { describe, expect, it } from 'vitest'
import { AttachmentBudget, checkAttachment } from '../../../shell-web/kernel/attachments.ts'

const MiB = 1024 * 1024

describe('attachments', () => {
  it('accepts one ArrayBuffer of at most 16 MiB, nothing else', () => {
    expect(checkAttachment(new ArrayBuffer(16 * MiB))).toEqual({ bytes: 16 * MiB })
    expect(checkAttachment(new ArrayBuffer(16 * MiB + 1))).toMatchObject({ code: 'ATTACHMENT_TOO_LARGE' })
    expect(checkAttachment(new Uint8Array(4))).toMatchObject({ code: 'BAD_REQUEST' })
    expect(checkAttachment(new ArrayBuffer(4, { maxByteLength: 8 }))).toMatchObject({ code: 'BAD_REQUEST' })
    expect(checkAttachment('bytes')).toMatchObject({ code: 'BAD_REQUEST' })
  })

  it('holds at most 32 MiB per endpoint and 64 MiB overall, refusing with retryAfterMs; releasing frees it', () => {
    const budget = new AttachmentBudget()
    const [a, b, c] = [{}, {}, {}]
    expect(budget.reserve(a, 32 * MiB)).toBeNull()
    expect(budget.reserve(a, 1)).toMatchObject({ code: 'ATTACHMENT_BUDGET', retryAfterMs: expect.any(Number) })
    expect(budget.reserve(b, 32 * MiB)).toBeNull()
    expect(budget.reserve(c, 1)).toMatchObject({ code: 'ATTACHMENT_BUDGET' })
    expect(budget.held()).toBe(64 * MiB)
    budget.release(a, 32 * MiB)
    expect(budget.held(a)).toBe(0)
    expect(budget.reserve(c, 1)).toBeNull()
    expect(budget.held()).toBe(32 * MiB + 1)
  })
})
