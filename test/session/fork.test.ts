import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { EdgeView } from '../../objects/graph/node-state.ts'
import { conversationOf, turnOf } from '../../objects/graph/turns.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { History } from '../../objects/session/turn/history.ts'
import { api } from '../support/api.ts'
import { bearer, idOf } from '../support/auth.ts'
import { events, newSession, ownerCaller, postJson, types, waitIdle } from '../support/session.ts'

const TURN_EVENTS = /^session\.next\.(admitted|prompted|step\.|text|reasoning|tool\.)/

/** The turn events of a log, as the model's history sees them: type and payload, in order. */
const turnsOf = (log: Stored[]) => log.filter((e) => TURN_EVENTS.test(e.type)).map((e) => [e.type, e.payload])

async function converse(id: string, ...texts: string[]) {
  for (const text of texts) {
    await postJson(`/v1/sessions/${id}/prompt`, { text })
    await waitIdle(id)
  }
}

async function neighbours(address: string, query = ''): Promise<EdgeView[]> {
  const res = await api(`/v1/graph/nodes/${address}/neighbours${query}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { items: EdgeView[] }).items
}

describe('fork over HTTP', () => {
  it("starts a new session from a past turn: the fork's history is the prefix, the original is unchanged", async () => {
    const { id } = await newSession('origin')
    await converse(id, 'first question', 'second question')
    const before = await events(id)
    const firstStepEnded = before.find((e) => e.type === 'session.next.step.ended')!

    const res = await postJson(`/v1/sessions/${id}/fork`, { at: firstStepEnded.seq, id: `${id}-fork` })
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({ id: `${id}-fork`, status: 'idle' })
    const fork = await events(`${id}-fork`)
    expect(turnsOf(fork)).toEqual(turnsOf(before.filter((e) => e.seq <= firstStepEnded.seq)))
    const firstAnswer = turnOf(before.find((e) => e.type === 'session.next.text')!.id)
    expect(fork[0]!.headers).toContainEqual({ key: 'forked-from', value: { session: id, at: firstStepEnded.seq, head: firstAnswer } })
    // Each copy names the event it copies.
    expect(fork.slice(1).map((e) => e.headers.find((h) => h.key === 'copied-from')?.value)).toEqual(
      before.filter((e) => e.seq <= firstStepEnded.seq && !/created|drain/.test(e.type)).map((e) => e.id),
    )
    expect(await events(id)).toEqual(before)

    // The fork goes on from there: its model sees only the prefix plus the new prompt.
    await converse(`${id}-fork`, 'a different second question')
    const shown = await runInDurableObject(env.SESSIONS.getByName(`${id}-fork`), (_o, state) => new History(new Ledger(state.storage), `session.${id}-fork`).messages())
    expect(shown.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['first question', 'a different second question'])
    expect(shown.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(await events(id)).toEqual(before)

    // In the graph: the fork's conversation `forks` from the origin's first answer, and its
    // first new turn follows that same old turn (forking = a new link to an old turn).
    await env.SESSIONS.getByName(`${id}-fork`).writeChain(ownerCaller)
    expect((await neighbours(conversationOf(`${id}-fork`), '?type=forks')).map((e) => e.target)).toEqual([firstAnswer])
    const followers = (await neighbours(firstAnswer, '?type=follows&direction=in')).map((e) => e.source)
    const forkPrompt = turnOf((await events(`${id}-fork`)).filter((e) => e.type === 'session.next.prompted').at(-1)!.id)
    const originPrompt = turnOf(before.filter((e) => e.type === 'session.next.prompted').at(-1)!.id)
    expect(followers.sort()).toEqual([forkPrompt, originPrompt].sort())
  })

  it('refuses a fork point inside a turn, an unknown point, an existing id, and a caller who cannot read the origin', async () => {
    const { id } = await newSession('origin-bad')
    await converse(id, 'hello')
    const log = await events(id)
    const stepStarted = log.find((e) => e.type === 'session.next.step.started')!
    const cases: [unknown, string, number, string][] = [
      [{ at: stepStarted.seq }, 'ada', 409, 'NOT_A_TURN_BOUNDARY'],
      [{ at: 9999 }, 'ada', 404, 'UNKNOWN_SEQUENCE'],
      [{ at: log.at(-1)!.seq, id }, 'ada', 409, 'SESSION_EXISTS'],
      [{ at: log.at(-1)!.seq }, 'cyd', 404, 'SESSION_NOT_FOUND'],
      [{ at: 'last' }, 'ada', 400, 'INVALID_REQUEST'],
    ]
    for (const [body, who, status, code] of cases) {
      const res = await postJson(`/v1/sessions/${id}/fork`, body, who)
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([status, code])
    }
    expect(await events(id)).toEqual(log)
  })

  it("forked by someone the origin is shared with: the copies become the fork's own turns in the forker's graph", async () => {
    const { id } = await newSession('shared-origin', 'ada', { share: ['org:acme'] })
    await converse(id, 'one')
    const log = await events(id)
    const carol = { ...(await bearer('carol', ['org:acme'])), 'content-type': 'application/json' }
    const at = log.find((e) => e.type === 'session.next.step.ended')!.seq
    const res = await api(`/v1/sessions/${id}/fork`, { method: 'POST', headers: carol, body: JSON.stringify({ at, id: `${id}-c` }) })
    expect(res.status).toBe(201)
    const carolCaller = { id: idOf('carol'), claims: ['org:acme'] }
    await env.SESSIONS.getByName(`${id}-c`).writeChain(carolCaller)
    const fork = (await env.SESSIONS.getByName(`${id}-c`).history(carolCaller, 0, 100)).items as Stored[]
    expect(fork[0]!.headers).toContainEqual({ key: 'forked-from', value: { session: id, at } })
    // In carol's graph: the copied answer is a turn of her conversation, following her copied prompt.
    const answer = turnOf(fork.find((e) => e.type === 'session.next.text')!.id)
    const prompt = turnOf(fork.find((e) => e.type === 'session.next.prompted')!.id)
    const follows = await api(`/v1/graph/nodes/${answer}/neighbours?type=follows`, { headers: carol })
    expect(((await follows.json()) as { items: EdgeView[] }).items.map((e) => e.target)).toEqual([prompt])
  })
})

describe('truncate over HTTP', () => {
  it("points the conversation's head at an earlier turn: the next turn follows it; history stays", async () => {
    const { id } = await newSession('trunc')
    await converse(id, 'one', 'two')
    const log = await events(id)
    const firstAnswer = log.find((e) => e.type === 'session.next.text')!
    const restPoint = log.find((e) => e.type === 'session.next.step.ended')!
    const res = await postJson(`/v1/sessions/${id}/truncate`, { at: restPoint.seq })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ head: turnOf(firstAnswer.id), truncated: expect.any(Number) })
    expect((await neighbours(conversationOf(id), '?type=truncates')).map((e) => e.target)).toEqual([turnOf(firstAnswer.id)])

    await converse(id, 'three')
    await env.SESSIONS.getByName(id).writeChain(ownerCaller)
    const three = turnOf((await events(id)).filter((e) => e.type === 'session.next.prompted').at(-1)!.id)
    expect((await neighbours(three, '?type=follows')).map((e) => e.target)).toEqual([turnOf(firstAnswer.id)])
    // Nothing was removed: the session's log still holds every turn, in order.
    expect(types(await events(id)).filter((t) => t === 'prompted')).toHaveLength(3)
    // The model was shown exactly what a session that never had turn two shows: the same request size.
    const control = await newSession('trunc-control')
    await converse(control.id, 'one', 'three')
    const lastUsage = async (session: string) => ((await events(session)).filter((e) => e.type === 'session.next.step.ended').at(-1)!.payload as { usage: unknown }).usage
    expect(await lastUsage(id)).toEqual(await lastUsage(control.id))

    for (const [at, status, code] of [[10_000, 404, 'UNKNOWN_SEQUENCE'], [log.find((e) => e.type === 'session.next.step.started')!.seq, 409, 'NOT_A_TURN_BOUNDARY']] as const) {
      const bad = await postJson(`/v1/sessions/${id}/truncate`, { at })
      expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([status, code])
    }
  })

  it('truncates back before the first turn: the head is the conversation itself and the next turn opens it again', async () => {
    const { id } = await newSession('trunc-start')
    await converse(id, 'one')
    const log = await events(id)
    const restPoints = log.filter((e) => e.seq <= 3).map((e) => e.seq)
    for (const at of restPoints) {
      const before = await events(id)
      const res = await postJson(`/v1/sessions/${id}/truncate`, { at })
      const answer = (await res.json()) as { head: string; truncated: number }
      expect([res.status, answer.head], `truncate at ${at}`).toEqual([200, conversationOf(id)])
      // One event, the truncation itself: nothing else was written, and it is the one answered.
      expect((await events(id)).slice(before.length).map((e) => [e.type, e.seq])).toEqual([['session.next.truncated', answer.truncated]])
    }
    await converse(id, 'two')
    await env.SESSIONS.getByName(id).writeChain(ownerCaller)
    const two = turnOf((await events(id)).filter((e) => e.type === 'session.next.prompted').at(-1)!.id)
    expect((await neighbours(two, '?type=follows')).map((e) => e.target)).toEqual([conversationOf(id)])
    const shown = await runInDurableObject(env.SESSIONS.getByName(id), (_o, state) => new History(new Ledger(state.storage), `session.${id}`).messages())
    expect(shown.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['one', 'two'])
  })

  it('forks and truncates a fork at a turn it copied: the head is the origin turn it copied', async () => {
    const { id } = await newSession('fork-of-fork')
    await converse(id, 'one', 'two')
    const origin = await events(id)
    const firstAnswer = turnOf(origin.find((e) => e.type === 'session.next.text')!.id)
    const fork = `${id}-f`
    const at = origin.find((e) => e.type === 'session.next.step.ended')!.seq
    expect((await postJson(`/v1/sessions/${id}/fork`, { at, id: fork })).status).toBe(201)
    const copied = await events(fork)
    const copiedHead = copied.filter((e) => e.type === 'session.next.step.ended').at(-1)!.seq

    const forkOfFork = await postJson(`/v1/sessions/${fork}/fork`, { at: copiedHead, id: `${fork}-f` })
    expect(forkOfFork.status).toBe(201)
    await env.SESSIONS.getByName(`${fork}-f`).writeChain(ownerCaller)
    expect((await neighbours(conversationOf(`${fork}-f`), '?type=forks')).map((e) => e.target)).toEqual([firstAnswer])

    await converse(fork, 'two on the fork')
    const truncated = await postJson(`/v1/sessions/${fork}/truncate`, { at: copiedHead })
    expect([truncated.status, ((await truncated.json()) as { head: string }).head]).toEqual([200, firstAnswer])
    await converse(fork, 'three on the fork')
    await env.SESSIONS.getByName(fork).writeChain(ownerCaller)
    const three = turnOf((await events(fork)).filter((e) => e.type === 'session.next.prompted').at(-1)!.id)
    expect((await neighbours(three, '?type=follows')).map((e) => e.target)).toEqual([firstAnswer])
  })
})

