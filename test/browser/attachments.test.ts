/**
 * Attachments in real Chromium (`fixtures/bytes`): one ArrayBuffer beside a call and one beside
 * its answer, transferred on the private ports; ≤ 16 MiB each, ≤ 32 MiB in flight per endpoint and
 * ≤ 64 MiB in the shell, refused with a code (never queued), and freed on every outcome.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditSince, fixtureState, frameOf, install, lastSeq, openShell, openTile, type Shell, waitForEndpoint } from './support/shell.ts'

const BG = 'app:bytes:background'
const MiB = 1024 * 1024
const BYTES = { id: 'bytes', version: '1.0.0', title: 'Bytes', entries: { tile: '/fixtures/bytes/tile', background: '/fixtures/bytes/background' }, tools: ['hold_bytes', 'echo_bytes', 'make_bytes', 'plain'] }
let shell: Shell
let tileId: string
let t: Frame
let bg: Frame

type Sent = { outcome: { ok?: any; error?: { code: string; message: string; retryAfterMs?: number } }; detachedAtOnce: boolean; answerBytes: number | null; answerFirst: number | null }
const send = (frame: Frame, name: string, args: object, n: number, options: object = {}): Promise<Sent> =>
  frame.evaluate(([name, args, n, options]) => (globalThis as any).bytes.send('app:bytes:background', name, args, n, options), [name, args, n, options] as const)
const held = (): Promise<number> => shell.page.evaluate(() => (window as any).neutron.kernel.calls.attachments.held())

async function tile(): Promise<[string, Frame]> {
  const id = await openTile(shell.page, 'bytes')
  const frame = await frameOf(shell.page, id)
  await frame.evaluate(() => (globalThis as any).bytes.ready)
  return [id, frame]
}

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, BYTES)
  await waitForEndpoint(shell.page, BG, BYTES.tools)
  ;[tileId, t] = await tile()
  bg = await frameOf(shell.page, BG)
})
afterAll(() => shell?.close())

describe('attachments', () => {
  it('a 16 MiB attachment goes and comes back transferred: detached in the sender, the same bytes at the far end', async () => {
    const sent = await send(t, 'echo_bytes', {}, 16 * MiB)
    expect(sent.outcome.ok).toEqual({ bytes: 16 * MiB, first: 7 })
    expect(sent.detachedAtOnce).toBe(true)
    expect([sent.answerBytes, sent.answerFirst]).toEqual([16 * MiB, 7])
    expect(await held()).toBe(0)
    const made = await t.evaluate(() => (globalThis as any).bytes.receive('app:bytes:background', 'make_bytes', { n: 1024 }))
    expect(made).toEqual({ outcome: { ok: { bytes: 1024 } }, answerBytes: 1024 })
  })

  it('16 MiB + 1 byte is refused with ATTACHMENT_TOO_LARGE by the SDK and by the kernel, audited, and never reaches the target', async () => {
    const received = (await fixtureState<number[]>(bg, 'received')).length
    const since = await lastSeq(shell.page)
    expect((await send(t, 'echo_bytes', {}, 16 * MiB + 1)).outcome.error?.code).toBe('ATTACHMENT_TOO_LARGE')
    const raw = await t.evaluate(([n]) => (globalThis as any).bytes.raw('tools.call', { target: 'app:bytes:background', name: 'echo_bytes', arguments: {} }, n), [16 * MiB + 1] as const)
    expect(raw.error?.code).toBe('ATTACHMENT_TOO_LARGE')
    const entries = (await auditSince(shell.page, since)).filter((e) => e.code === 'ATTACHMENT_TOO_LARGE')
    expect(entries.map((e) => e.caller)).toEqual([tileId])
    expect((await fixtureState<number[]>(bg, 'received')).length).toBe(received)
    expect(await held()).toBe(0)
  })

  it('only a tool annotated neutron:attachments takes one: otherwise ATTACHMENT_REJECTED, before the target sees anything', async () => {
    const received = (await fixtureState<number[]>(bg, 'received')).length
    expect((await send(t, 'plain', {}, 10)).outcome.error?.code).toBe('ATTACHMENT_REJECTED')
    const raw = (action: string, payload: object) => t.evaluate(([a, p]) => (globalThis as any).bytes.raw(a, p, 10), [action, payload] as const)
    expect((await raw('tools.call', { target: 'kernel', name: 'apps.list', arguments: {} })).error?.code).toBe('ATTACHMENT_REJECTED')
    expect((await raw('tools.list', { target: BG })).error?.code).toBe('ATTACHMENT_REJECTED')
    expect((await raw('app.state.publish', { topic: 'bytes', revision: 1 })).error?.code).toBe('ATTACHMENT_REJECTED')
    expect((await fixtureState<number[]>(bg, 'received')).length).toBe(received)
    const descriptors = await t.evaluate(() => (globalThis as any).bytes.bus.listTools('app:bytes:background'))
    expect(descriptors.find((d: any) => d.name === 'echo_bytes').annotations).toEqual({ 'neutron:attachments': true })
    expect(descriptors.find((d: any) => d.name === 'plain').annotations).toBeUndefined()
  })

  it('an answer may carry one only for an annotated tool and within 16 MiB, even from a target that goes around its SDK', async () => {
    await bg.evaluate(() => ((globalThis as any).fixture.forge = 8))
    expect((await send(t, 'plain', {}, 0)).outcome.error?.code).toBe('ATTACHMENT_REJECTED')
    await bg.evaluate((n) => ((globalThis as any).fixture.forge = n), 16 * MiB + 1)
    const answer = await t.evaluate(() => (globalThis as any).bytes.receive('app:bytes:background', 'make_bytes', { n: 1 }))
    expect(answer.outcome.error?.code).toBe('ATTACHMENT_TOO_LARGE')
    expect(await held()).toBe(0)
  })

  it('per endpoint: 32 MiB in flight, then ATTACHMENT_BUDGET with retryAfterMs (never queued); freed when the calls end', async () => {
    const holding = [send(t, 'hold_bytes', { ms: 1_500 }, 16 * MiB), send(t, 'hold_bytes', { ms: 1_500 }, 16 * MiB)]
    await expect.poll(held).toBe(32 * MiB)
    const refused = await send(t, 'hold_bytes', { ms: 0 }, 1)
    expect(refused.outcome.error).toMatchObject({ code: 'ATTACHMENT_BUDGET', retryAfterMs: expect.any(Number) })
    expect(refused.outcome.error!.message).toContain('per endpoint')
    expect(refused.detachedAtOnce).toBe(true) // transferred, then refused: the sender keeps nothing
    expect((await Promise.all(holding)).map((s) => s.outcome)).toEqual([{ ok: { bytes: 16 * MiB } }, { ok: { bytes: 16 * MiB } }])
    expect(await held()).toBe(0)
    expect((await send(t, 'hold_bytes', { ms: 0 }, 1)).outcome).toEqual({ ok: { bytes: 1 } })
  })

  it('globally: 64 MiB in flight across endpoints, then ATTACHMENT_BUDGET for everyone', async () => {
    const [, second] = await tile()
    const [, third] = await tile()
    const holding = [t, t, second, second].map((f) => send(f, 'hold_bytes', { ms: 2_000 }, 16 * MiB))
    await expect.poll(held).toBe(64 * MiB)
    const refused = await send(third, 'hold_bytes', { ms: 0 }, 1)
    expect(refused.outcome.error).toMatchObject({ code: 'ATTACHMENT_BUDGET', retryAfterMs: expect.any(Number) })
    expect(refused.outcome.error!.message).toContain('in the shell')
    expect((await Promise.all(holding)).every((s) => s.outcome.ok?.bytes === 16 * MiB)).toBe(true)
    expect(await held()).toBe(0)
  })

  it('the budget is freed on every outcome: error, timeout, cancel, caller reload, target reload', async () => {
    expect((await send(t, 'hold_bytes', { ms: 0, fail: true }, MiB)).outcome.error?.code).toBe('TOOL_ERROR')
    expect(await held()).toBe(0)
    expect((await send(t, 'hold_bytes', { ms: 10_000 }, MiB, { timeout: 0.3 })).outcome.error?.code).toBe('TIMEOUT')
    expect(await held()).toBe(0)
    const cancelled = send(t, 'hold_bytes', { ms: 10_000 }, MiB, { abortKey: 'c' })
    await expect.poll(held).toBe(MiB)
    await t.evaluate(() => (globalThis as any).bytes.abort('c'))
    expect((await cancelled).outcome.error?.code).toBe('CANCELLED')
    expect(await held()).toBe(0)

    // The caller reloads mid-call.
    void send(t, 'hold_bytes', { ms: 10_000 }, MiB).catch(() => {})
    await expect.poll(held).toBe(MiB)
    await t.evaluate(() => void setTimeout(() => location.reload(), 0))
    await expect.poll(held).toBe(0)

    // The target reloads mid-call.
    const [, fresh] = await tile()
    const gone = send(fresh, 'hold_bytes', { ms: 10_000 }, MiB)
    await expect.poll(held).toBe(MiB)
    await bg.evaluate(() => void setTimeout(() => location.reload(), 0))
    expect((await gone).outcome.error?.code).toBe('ENDPOINT_GONE')
    expect(await held()).toBe(0)
    await waitForEndpoint(shell.page, BG, BYTES.tools)
    bg = await frameOf(shell.page, BG)
  })

  it('the trusted page raised no errors', () => {
    expect(shell.errors).toEqual([])
  })
})
