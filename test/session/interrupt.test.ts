import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { emptySession, reduceSession } from '../../objects/session/events/projection.ts'
import { recover } from '../../objects/session/turn/recovery.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { events, newSession, postJson, types, waitFor, waitIdle } from '../support/session.ts'

const prompt = (id: string, body: Record<string, unknown>) => postJson(`/v1/sessions/${id}/prompt`, body)
const interrupt = (id: string, body: Record<string, unknown> = {}) => postJson(`/v1/sessions/${id}/interrupt`, body)
const stepOf = (e: Stored) => (e.payload as { step: string }).step
const answers = (log: Stored[]) => log.filter((e) => e.type === 'session.next.text').map((e) => (e.payload as { text: string }).text)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('interrupt: a durable control entry that names its target', () => {
  it('a double interrupt naming the turn it saw stops that turn only; the next queued prompt still gets its answer', async () => {
    const { id } = await newSession()
    await prompt(id, { id: 'long', text: '/tool wait {"ms":30000}' })
    const started = await waitFor(id, 'session.next.tool.called')
    // The next prompt's turn lasts ~600 ms, long enough for a late second click to land inside it.
    await prompt(id, { id: 'next', text: 'the next answer\n/slow 30\n/tokens 20' })
    const seen = stepOf(started)
    const first = await interrupt(id, { step: seen })
    expect(await first.json()).toMatchObject({ interrupted: true, step: seen, pending: 1 })
    await sleep(40)
    const second = await interrupt(id, { step: seen })
    expect(second.status).toBe(200)
    expect(await second.json()).toMatchObject({ interrupted: false, step: seen })
    await waitIdle(id)
    const log = await events(id)
    expect(types(log).filter((t) => t === 'interrupted')).toHaveLength(1)
    expect(types(log).filter((t) => t === 'interrupt.requested')).toHaveLength(1)
    // The queued prompt's turn ran to its end: its step ended with a stop and its text is there.
    const nextStep = log.filter((e) => e.type === 'session.next.step.started').at(-1)!
    expect(stepOf(nextStep)).not.toBe(seen)
    expect(log.find((e) => e.type === 'session.next.step.ended' && stepOf(e) === stepOf(nextStep))!.payload).toMatchObject({ finish: 'stop' })
    expect(answers(log).at(-1)!.split(' ')).toHaveLength(20)
  })

  it('a retried interrupt (same id, no step) is idempotent: it never reaches a turn that started after it', async () => {
    const { id } = await newSession()
    await prompt(id, { id: 'long', text: '/tool wait {"ms":30000}' })
    const started = await waitFor(id, 'session.next.tool.called')
    await prompt(id, { id: 'next', text: 'second\n/slow 30\n/tokens 20' })
    const first = (await (await interrupt(id, { id: 'click-1', reason: 'stop it' })).json()) as Record<string, unknown>
    expect(first).toMatchObject({ interrupted: true, step: stepOf(started), request: 'click-1' })
    await sleep(40)
    const retry = (await (await interrupt(id, { id: 'click-1', reason: 'stop it' })).json()) as Record<string, unknown>
    expect(retry).toEqual({ ...first, pending: retry.pending, duplicate: true })
    await waitIdle(id)
    const log = await events(id)
    expect(types(log).filter((t) => t === 'interrupted')).toHaveLength(1)
    const requested = log.find((e) => e.type === 'session.next.interrupt.requested')!
    expect(requested.payload).toMatchObject({ id: 'click-1', step: stepOf(started), reason: 'stop it', by: expect.any(String) })
    // Recorded before it acted: the request precedes the interruption it caused.
    expect(requested.seq).toBeLessThan(log.find((e) => e.type === 'session.next.interrupted')!.seq)
    expect(log.find((e) => e.type === 'session.next.interrupted')!.payload).toMatchObject({ request: 'click-1' })
    expect(answers(log).at(-1)!.split(' ')).toHaveLength(20)
  })

  it('an interrupt naming a turn that is not running is a no-op that says so, and records nothing', async () => {
    const { id } = await newSession()
    await prompt(id, { text: 'hello' })
    await waitIdle(id)
    const before = (await events(id)).length
    const res = await interrupt(id, { step: 'no-such-step' })
    expect(await res.json()).toMatchObject({ interrupted: false, step: 'no-such-step', message: expect.stringContaining('not running') })
    expect((await events(id)).length).toBe(before)
  })

  it('bad interrupt bodies are a 400 with a code', async () => {
    const { id } = await newSession()
    for (const body of [{ step: 5 }, { nope: true }, { id: '' }, { reason: 'x'.repeat(5000) }]) {
      const res = await interrupt(id, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST')
    }
    const notJson = await postJson(`/v1/sessions/${id}/interrupt`, undefined)
    expect(notJson.status).toBe(200)
  })
})

describe('interrupt: honoured on wake', () => {
  const replay = (ledger: import('../../objects/ledger/ledger.ts').Ledger, topic: string) => ledger.fold(topic, reduceSession, emptySession()).state

  it('an entry recorded just before a crash cancels the open calls and closes the loop, once', () =>
    withLedger(uniqueName('wake'), (ledger) => {
      const topic = 'session.wake'
      let parent: string | null = null
      const append = (type: string, payload: unknown) => (parent = ledger.append({ topic, type, author: 'test', parent, payload }).envelope.id)
      append('session.next.created', { model: 'echo-1', provider: 'local', title: null, system: null, owner: 'o', share: [] })
      append('session.next.admitted', { messageId: 'm', delivery: 'queue', text: 'go', digest: 'd' })
      append('session.next.drain.started', { run: 'r1' })
      append('session.next.prompted', { messageIds: ['m'] })
      append('session.next.step.started', { step: 's1', turn: 1, provider: 'local', model: 'echo-1' })
      append('session.next.tool.called', { step: 's1', toolCallId: 'c1', name: 'wait', input: {} })
      append('session.next.interrupt.requested', { id: 'stop-1', step: 's1', by: 'o', reason: 'stop' })
      // The process dies here. On wake, recovery runs against the folded state.
      const record = (type: string, payload: unknown) => append(type, payload)
      expect(recover(replay(ledger, topic), record as never)).toBe(true)
      const after = ledger.byTopic(topic, { limit: 100 }).items.slice(7).map((e) => [e.type.replace('session.next.', ''), e.payload])
      expect(after).toEqual([
        ['tool.cancelled', { step: 's1', toolCallId: 'c1', reason: 'interrupted' }],
        ['interrupted', { step: 's1', reason: 'interrupt honoured on wake', request: 'stop-1' }],
        ['drain.ended', { run: 'r1', reason: 'recovered' }],
      ])
      const state = replay(ledger, topic)
      expect(state).toMatchObject({ loopOpen: false, step: null, run: null, running: {}, interrupt: { id: 'stop-1', honoured: true } })
      // Idempotent on replay: a second wake finds nothing owed.
      expect(recover(state, record as never)).toBe(false)
    }))

  it('an entry whose turn already ended some other way is spent: it never reaches a later turn', () =>
    withLedger(uniqueName('spent'), (ledger) => {
      const topic = 'session.spent'
      let parent: string | null = null
      const append = (type: string, payload: unknown) => (parent = ledger.append({ topic, type, author: 'test', parent, payload }).envelope.id)
      append('session.next.created', { model: 'echo-1', provider: 'local', title: null, system: null, owner: 'o', share: [] })
      append('session.next.drain.started', { run: 'r1' })
      append('session.next.step.started', { step: 's1', turn: 1, provider: 'local', model: 'echo-1' })
      append('session.next.interrupt.requested', { id: 'late', step: 's1', by: 'o', reason: 'stop' })
      append('session.next.step.failed', { step: 's1', error: { code: 'X', message: 'x' } })
      append('session.next.step.started', { step: 's2', turn: 2, provider: 'local', model: 'echo-1' })
      recover(replay(ledger, topic), ((type: string, payload: unknown) => append(type, payload)) as never)
      const types = ledger.byTopic(topic, { limit: 100 }).items.slice(6).map((e) => e.type.replace('session.next.', ''))
      expect(types).toEqual(['step.failed', 'drain.ended'])
    }))
})
