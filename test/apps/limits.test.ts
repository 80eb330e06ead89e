/**
 * What one backend call may use, and what an update leaves behind: an update is all or nothing
 * (its writes are staged, visible to its own reads, and stored only when it answers in time with
 * a valid output), and a call that does not answer by its deadline is 504 BACKEND_TIMEOUT
 * without holding up the updates queued behind it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { pkg } from '../fixtures/apps/packages.ts'
import { call, errorOf, installed, output, person, upload, warm } from './support.ts'

/** Writes then fails in each way a call can fail; `slow` writes then sleeps past its deadline. */
const MODULE = `export default {
  async read(input, state) { return { value: await state.get(input.key) } },
  async writeThenThrow(input, state) { await state.put(input.key, 'partial'); throw new Error('gave up') },
  async writeThenLie(input, state) { await state.put(input.key, 'partial'); return { notAllowed: true } },
  async readOwnWrites(input, state) {
    await state.put(input.key, 1); await state.put(input.key, 2); await state.put('other', 'x')
    return { seen: await state.get(input.key) }
  },
  async slow(input, state) {
    await state.put(input.key, 'before the deadline')
    await new Promise((resolve) => setTimeout(resolve, input.ms))
    await state.put(input.key, 'after the deadline')
    return { late: 'stored' }
  },
  async keep(input, state) { globalThis.kept = state; await state.put(input.key, 'during the call'); return {} },
  async writeKept(input) {
    try { await globalThis.kept.put(input.key, 'after the call ended'); return { late: 'stored' } } catch (error) { return { late: 'refused', message: String(error.message) } }
  },
  async commitThenThrow(input, state) {
    await state.put(input.key, 'committed by the backend')
    let commit = 'reachable'
    try { await state.commit() } catch (error) { commit = String(error.message) }
    throw new Error('commit: ' + commit)
  },
  async commitThenLie(input, state) {
    await state.put(input.key, 'committed by the backend')
    try { await state.commit() } catch {}
    return { notAllowed: true }
  },
  async never() { return await new Promise(() => {}) },
  async stoppedBy(input, state) { await state.put(input.key, 'before the runtime stopped it'); throw new Error(input.message) },
}`
const STRICT = { type: 'object', properties: { seen: { type: 'integer' } }, additionalProperties: false }
const METHODS = {
  read: { kind: 'query' as const },
  writeThenThrow: { kind: 'update' as const },
  writeThenLie: { kind: 'update' as const, output: STRICT },
  readOwnWrites: { kind: 'update' as const, output: STRICT },
  slow: { kind: 'update' as const, timeoutMs: 300 },
  keep: { kind: 'update' as const },
  writeKept: { kind: 'update' as const },
  commitThenThrow: { kind: 'update' as const },
  commitThenLie: { kind: 'update' as const, output: STRICT },
  never: { kind: 'update' as const, timeoutMs: 500 },
  stoppedBy: { kind: 'update' as const },
}
const value = async (key: string, as: string) => (await output('limits', 'read', { key }, as)).value

describe('backend limits and atomic updates', () => {
  beforeAll(() => warm(), 60_000)

  it('an update that throws or answers a wrong output stores none of its writes', async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    const thrown = await call('limits', 'writeThenThrow', { key: 'k' }, ada)
    expect(thrown.status).toBe(502)
    expect(await errorOf(thrown)).toMatchObject({ code: 'BACKEND_FAILED', details: { reason: expect.stringContaining('gave up') } })
    const lied = await call('limits', 'writeThenLie', { key: 'k' }, ada)
    expect(lied.status).toBe(502)
    expect(await errorOf(lied)).toMatchObject({ code: 'INVALID_OUTPUT' })
    expect(await value('k', ada)).toBeNull()
  })

  it('only the kernel commits: a backend calling state.commit() keeps nothing of a failed or invalid update', async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    const thrown = await call('limits', 'commitThenThrow', { key: 'k' }, ada)
    expect(thrown.status).toBe(502)
    expect((await errorOf(thrown)).details?.reason).not.toContain('commit: reachable')
    const lied = await call('limits', 'commitThenLie', { key: 'k' }, ada)
    expect(await errorOf(lied)).toMatchObject({ code: 'INVALID_OUTPUT' })
    expect(await value('k', ada)).toBeNull()
  })

  it('a promise that never settles is 504 BACKEND_TIMEOUT at its deadline, and stores nothing', async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    const never = await call('limits', 'never', {}, ada)
    expect(never.status).toBe(504)
    expect(await errorOf(never)).toMatchObject({ code: 'BACKEND_TIMEOUT', details: { method: 'never', timeoutMs: 500 } })
  })

  // Cloudflare stops an isolate past its CPU, memory or subrequest limit with these errors; local
  // workerd never does (docs/backends.md#bounds), so the backend throws them itself here.
  it("the runtime's limit errors are 502 BACKEND_LIMIT with the bound, and store nothing", async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    const cases = [['Worker exceeded CPU time limit.', 'cpu'], ['Worker has exceeded memory limit.', 'memory'], ['Too many subrequests.', 'subrequests']] as const
    for (const [message, limit] of cases) {
      const res = await call('limits', 'stoppedBy', { key: 'k', message }, ada)
      expect(res.status, message).toBe(502)
      expect(await errorOf(res), message).toMatchObject({ code: 'BACKEND_LIMIT', details: { method: 'stoppedBy', limit } })
    }
    expect(await value('k', ada)).toBeNull()
  })

  it("an update reads its own staged writes, and all of them are stored when it answers", async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    expect(await output('limits', 'readOwnWrites', { key: 'k' }, ada)).toEqual({ seen: 2 })
    expect(await value('k', ada)).toBe(2)
    expect(await value('other', ada)).toBe('x')
  })

  it('a call past its deadline is 504 BACKEND_TIMEOUT, stores nothing, and frees the queue', async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    const started = Date.now()
    const [slow, next] = await Promise.all([
      call('limits', 'slow', { key: 'k', ms: 1_500 }, ada),
      // queued behind the slow update: it runs once the deadline has passed, not after the sleep
      call('limits', 'readOwnWrites', { key: 'q' }, ada),
    ])
    expect(slow.status).toBe(504)
    expect(await errorOf(slow)).toMatchObject({ code: 'BACKEND_TIMEOUT', details: { method: 'slow', timeoutMs: 300 } })
    expect(next.status).toBe(200)
    expect(Date.now() - started).toBeLessThan(1_500)
    // past the time the method would have woken and written: still nothing
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(await value('k', ada)).toBeNull()
  })

  it('a state kept past its call cannot write: the write is refused and nothing is stored', async () => {
    const ada = person('ada')
    await installed(pkg('limits', MODULE, METHODS), ada)
    expect(await output('limits', 'keep', { key: 'kept' }, ada)).toEqual({})
    expect(await output('limits', 'writeKept', { key: 'kept' }, ada)).toMatchObject({ late: 'refused' })
    expect(await value('kept', ada)).toBe('during the call')
  })

  it('a method may declare a deadline up to the kernel\'s 30 s, not beyond', async () => {
    const res = await upload(pkg('limits', MODULE, { ...METHODS, slow: { kind: 'update', timeoutMs: 30_001 } }), person('ada'))
    expect(res.status).toBe(400)
    expect(await errorOf(res)).toMatchObject({ code: 'INVALID_PACKAGE' })
  })
})
