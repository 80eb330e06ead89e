/**
 * The model's schedule tools on a real session with the local model: `schedule_create` asks the
 * owner first (the policy's default for a side effect) and, approved, creates the schedule the
 * routes list; `schedule_list` runs unasked; `schedule_delete` asks and deletes; a refusal of the
 * schedule's limits reaches the model as the tool's failure with its code, nothing created.
 */
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { api, events, newSession, postJson, waitFor, waitIdle } from '../support/session.ts'

const tool = (name: string, input: unknown) => `/tool ${name} ${JSON.stringify(input)}`
const listed = async (id: string) => ((await (await api(`/v1/sessions/${id}/schedules`)).json()) as { items: { id: string }[] }).items.map((s) => s.id)

/** Prompts a tool call; approves it when it asks; returns the call's outcome event. */
async function call(id: string, text: string, approve: boolean): Promise<Stored> {
  const before = (await events(id)).at(-1)!.seq
  expect((await postJson(`/v1/sessions/${id}/prompt`, { text })).status).toBe(202)
  if (approve) {
    const requested = await waitFor(id, 'session.next.permission.requested', before)
    const toolCallId = (requested.payload as { toolCallId: string }).toolCallId
    expect((await postJson(`/v1/sessions/${id}/permissions`, { toolCallId, reply: 'once' })).status).toBe(200)
  }
  await waitIdle(id)
  return (await events(id)).find((e) => e.seq > before && (e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed'))!
}

describe('schedule tools', () => {
  it('create asks and then creates, list runs unasked, delete asks and deletes; a refused create fails with its code', { timeout: 60_000 }, async () => {
    const { id } = await newSession('sched-tools')
    const created = await call(id, tool('schedule_create', { id: 'digest', when: { kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' }, prompt: { text: 'the digest' } }), true)
    expect(created.type).toBe('session.next.tool.succeeded')
    expect(JSON.parse((created.payload as { content: string }).content)).toMatchObject({ created: true, schedule: { id: 'digest', fired: 0 } })
    expect(await listed(id)).toEqual(['digest'])
    const list = await call(id, tool('schedule_list', {}), false)
    expect(JSON.parse((list.payload as { content: string }).content).items.map((s: { id: string }) => s.id)).toEqual(['digest'])
    const short = await call(id, tool('schedule_create', { when: { kind: 'every', seconds: 5 }, prompt: { text: 'too often' } }), true)
    expect(short.type).toBe('session.next.tool.failed')
    expect((short.payload as { error: { code: string } }).error.code).toBe('SCHEDULE_INTERVAL_TOO_SHORT')
    expect(await listed(id)).toEqual(['digest'])
    const deleted = await call(id, tool('schedule_delete', { id: 'digest' }), true)
    expect(deleted.type).toBe('session.next.tool.succeeded')
    expect(await listed(id)).toEqual([])
  })
})
