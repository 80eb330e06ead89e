/**
 * The pure parts of host tools: what an offer may hold (each tool refused
 * alone, an oversized offer refused whole) and the open-call table (each call
 * ends once; only its socket may answer it; bounded per socket; progress rate).
 */
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_HOST_CALLS_PER_SOCKET, MAX_HOST_OFFER_BYTES, MAX_HOST_TOOLS } from '../../objects/core/limits.ts'
import { HostCalls } from '../../objects/session/host-tools/host-calls.ts'
import { checkOffer } from '../../objects/session/host-tools/host-offer.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { settle } from '../../objects/tools/settle.ts'
import { allowing } from '../support/permission.ts'

const search = { name: 'notes_search', description: 'Search notes', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }
const never = async () => 'unused'
const codeOf = (run: () => unknown): string => {
  try {
    run()
  } catch (error) {
    if (error instanceof NeuronError) return error.code
    throw error
  }
  throw new Error('did not throw')
}

describe('checkOffer', () => {
  it('accepts good tools and refuses each bad one alone, with a code', () => {
    const { tools, offered, refused } = checkOffer(
      [
        search,
        { name: 'bad name', description: 'x', inputSchema: { type: 'object' } },
        { name: 'notes_search', description: 'again', inputSchema: { type: 'object' } },
        { name: 'no_desc', inputSchema: { type: 'object' } },
        { name: 'long_desc', description: 'x'.repeat(4097), inputSchema: { type: 'object' } },
        { name: 'not_object', description: 'x', inputSchema: { type: 'string' } },
        { name: 'broken_ref', description: 'x', inputSchema: { type: 'object', properties: { a: { $ref: 'https://evil.example/schema' } } } },
        { name: 'lookahead', description: 'x', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(?!admin)' } } } },
        { name: 'bad_type', description: 'x', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
        { name: 'bad_required', description: 'x', inputSchema: { type: 'object', required: 'a' } },
        'not even an object',
        { name: 'notes_open', description: 'Open a note', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } },
      ],
      never,
    )
    expect([...tools.keys()]).toEqual(['notes_search', 'notes_open'])
    expect(offered.map((t) => t.name)).toEqual(['notes_search', 'notes_open'])
    expect(refused.map((r) => [r.name, r.code])).toEqual([
      ['bad name', 'INVALID_TOOL_NAME'],
      ['notes_search', 'DUPLICATE_TOOL_NAME'],
      ['no_desc', 'INVALID_DESCRIPTION'],
      ['long_desc', 'INVALID_DESCRIPTION'],
      ['not_object', 'INVALID_SCHEMA'],
      ['broken_ref', 'INVALID_SCHEMA'],
      ['lookahead', 'INVALID_SCHEMA'],
      ['bad_type', 'INVALID_SCHEMA'],
      ['bad_required', 'INVALID_SCHEMA'],
      ['#10', 'INVALID_TOOL_NAME'],
    ])
    expect(refused.every((r) => r.message.length > 0)).toBe(true)
  })

  it('refuses an offer over the tool count or byte limit whole', () => {
    const many = Array.from({ length: MAX_HOST_TOOLS + 1 }, (_, i) => ({ ...search, name: `t${i}` }))
    expect(codeOf(() => checkOffer(many, never))).toBe('TOO_MANY_TOOLS')
    expect(checkOffer(many.slice(0, MAX_HOST_TOOLS), never).tools.size).toBe(MAX_HOST_TOOLS)
    const big = [{ ...search, description: 'x'.repeat(4000), inputSchema: { type: 'object', description: 'y'.repeat(MAX_HOST_OFFER_BYTES) } }]
    expect(codeOf(() => checkOffer(big, never))).toBe('HOST_OFFER_TOO_LARGE')
  })

  it("an accepted tool validates each call's input before the host sees it", async () => {
    const sent: unknown[] = []
    const { tools } = checkOffer([search], async (name, input) => (sent.push([name, input]), 'found'))
    const registry = new ToolRegistry()
    const shown = registry.register('notes_search', tools.get('notes_search')!, 'host:notes')
    const context = { sessionId: 's', assistantMessageId: 'step', toolCallId: 'c1', signal: new AbortController().signal, authority: { owner: true, memory: null }, permission: allowing }
    expect(await settle({ id: 'c1', name: 'notes_search', input: { q: 1 } }, shown, registry, context)).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } })
    expect(sent).toEqual([])
    expect(await settle({ id: 'c1', name: 'notes_search', input: { q: 'milk' } }, shown, registry, context)).toMatchObject({ ok: true, content: 'found' })
    expect(sent).toEqual([['notes_search', { q: 'milk' }]])
  })
})

describe('HostCalls', () => {
  const start = (calls: HostCalls, socket: string, call: string, options: { signal?: AbortSignal; timeoutMs?: number; cancels?: string[] } = {}) =>
    calls.start({ socket, call, step: 'step-1', timeoutMs: options.timeoutMs ?? 60_000, signal: options.signal ?? new AbortController().signal, cancel: (reason) => options.cancels?.push(reason) })

  it('the holder answers once; a second answer, an unknown call and another socket all get HOST_CALL_UNKNOWN', async () => {
    const calls = new HostCalls()
    const answer = start(calls, 'a', 'c1')
    expect(codeOf(() => calls.answer('b', 'c1', { ok: true, content: 'forged' }))).toBe('HOST_CALL_UNKNOWN')
    expect(codeOf(() => calls.answer('a', 'nope', { ok: true, content: 'x' }))).toBe('HOST_CALL_UNKNOWN')
    calls.answer('a', 'c1', { ok: true, content: 'real' })
    expect(await answer).toBe('real')
    expect(codeOf(() => calls.answer('a', 'c1', { ok: true, content: 'again' }))).toBe('HOST_CALL_UNKNOWN')
    expect(calls.size).toBe(0)
  })

  it("a host's coded failure rejects with its code", async () => {
    const calls = new HostCalls()
    const answer = start(calls, 'a', 'c1')
    calls.answer('a', 'c1', { ok: false, error: { code: 'NOTES_LOCKED', message: 'locked' } })
    await expect(answer).rejects.toMatchObject({ code: 'NOTES_LOCKED', message: 'locked' })
  })

  it('a closed socket fails only its own calls with HOST_GONE', async () => {
    const calls = new HostCalls()
    const mine = start(calls, 'a', 'c1')
    const theirs = start(calls, 'b', 'c2')
    expect(calls.drop('a')).toEqual(['c1'])
    await expect(mine).rejects.toMatchObject({ code: 'HOST_GONE' })
    calls.answer('b', 'c2', { ok: true, content: 'fine' })
    expect(await theirs).toBe('fine')
  })

  it('a timeout cancels the host and fails HOST_TIMEOUT; an abort cancels with its reason', async () => {
    const calls = new HostCalls()
    const cancels: string[] = []
    const slow = start(calls, 'a', 'c1', { timeoutMs: 20, cancels })
    await expect(slow).rejects.toMatchObject({ code: 'HOST_TIMEOUT' })
    expect(cancels).toEqual(['no answer within 20 ms'])
    const turn = new AbortController()
    const stopped = start(calls, 'a', 'c2', { signal: turn.signal, cancels })
    turn.abort(new Error('interrupted by the user'))
    await expect(stopped).rejects.toThrow('interrupted by the user')
    expect(cancels).toEqual(['no answer within 20 ms', 'interrupted by the user'])
    expect(codeOf(() => calls.answer('a', 'c2', { ok: true, content: 'late' }))).toBe('HOST_CALL_UNKNOWN')
  })

  it('bounds open calls per socket (HOST_BUSY) and progress per call (HOST_PROGRESS_RATE)', () => {
    const calls = new HostCalls()
    for (let i = 0; i < MAX_HOST_CALLS_PER_SOCKET; i++) void start(calls, 'a', `c${i}`).catch(() => {})
    expect(codeOf(() => start(calls, 'a', 'one-more'))).toBe('HOST_BUSY')
    void start(calls, 'b', 'other-socket').catch(() => {})
    expect(calls.progress('a', 'c0', 1000)).toEqual({ step: 'step-1' })
    expect(codeOf(() => calls.progress('a', 'c0', 1010))).toBe('HOST_PROGRESS_RATE')
    expect(calls.progress('a', 'c0', 1050)).toEqual({ step: 'step-1' })
    expect(codeOf(() => calls.progress('b', 'c0', 5000))).toBe('HOST_CALL_UNKNOWN')
    calls.drop('a')
    calls.drop('b')
  })
})
