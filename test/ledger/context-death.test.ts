import { env } from 'cloudflare:workers'
import { abortAllDurableObjects, evictDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { uniqueName } from '../support/ledger.ts'

type Tally = { count: number; sum: number; ids: string[] }
const tally = (state: Tally, e: Stored): Tally => ({
  count: state.count + 1,
  sum: state.sum + (e.payload as { i: number }).i,
  ids: [...state.ids, e.id],
})

async function foldAll(stub: DurableObjectStub<import('../../objects/ledger-object/ledger-object.ts').LedgerObject>, topic: string) {
  let state: Tally = { count: 0, sum: 0, ids: [] }
  let after = 0
  for (;;) {
    const page = await stub.byTopic(topic, { after, limit: 1000 })
    for (const e of page.items) state = tally(state, e as Stored)
    if (page.next === null) return state
    after = page.next
  }
}

const draft = (i: number) => ({ topic: 'session.death', type: 'note', author: 'test', payload: { i } })

describe('context death loses nothing', () => {
  it('abort mid-sequence: every acknowledged envelope is present exactly once after restart', async () => {
    const stub = env.LEDGER.getByName(uniqueName('abort'))
    for (let i = 0; i < 100; i++) await stub.append(draft(i))
    const before = await foldAll(stub, 'session.death')

    // 200 appends in flight; the object's context dies once 20 of them are acknowledged.
    let acknowledged = 0
    let abort!: () => void
    const aborted = new Promise<void>((resolve) => (abort = resolve)).then(() => abortAllDurableObjects())
    const inFlight = Array.from({ length: 200 }, (_, k) =>
      stub.append(draft(100 + k)).then(
        (appended) => {
          if (++acknowledged === 20) abort()
          return appended.envelope.id
        },
        () => null,
      ),
    )
    await aborted
    const results = await Promise.all(inFlight)
    const acked = results.filter((id): id is string => id !== null)
    expect(acked.length).toBeGreaterThanOrEqual(20)

    const fresh = env.LEDGER.getByName(stub.name!)
    const after = await foldAll(fresh, 'session.death')
    // The state before the abort is a prefix of the state after: nothing acknowledged was lost.
    expect(after.ids.slice(0, 100)).toEqual(before.ids)
    for (const id of acked) expect(after.ids).toContain(id)
    expect(new Set(after.ids).size).toBe(after.ids.length)
    // Appending again after the restart continues the sequence without gaps.
    const next = await fresh.append(draft(10_000))
    expect(next.envelope.seq).toBe(after.count + 1)
  })

  it('evict mid-sequence: the refolded state equals the state before eviction', async () => {
    const stub = env.LEDGER.getByName(uniqueName('evict'))
    for (let i = 0; i < 300; i++) await stub.append(draft(i))
    const before = await foldAll(stub, 'session.death')
    await evictDurableObject(stub)
    const after = await foldAll(env.LEDGER.getByName(stub.name!), 'session.death')
    expect(after).toEqual(before)
    expect(after.sum).toBe((299 * 300) / 2)
  })

  it('a re-sent append after a crash is recognised, not duplicated', async () => {
    const stub = env.LEDGER.getByName(uniqueName('retry'))
    const sent = { ...draft(1), time: 1_700_000_000_000 }
    const first = await stub.append(sent)
    await abortAllDurableObjects()
    const again = await env.LEDGER.getByName(stub.name!).append(sent)
    expect(again.duplicate).toBe(true)
    expect(again.envelope.seq).toBe(first.envelope.seq)
    expect((await foldAll(env.LEDGER.getByName(stub.name!), 'session.death')).count).toBe(1)
  })
})

describe('conversations survive context death', () => {
  it('both branches of a forked conversation read the same after the object is aborted', async () => {
    const name = uniqueName('chat')
    const stub = env.LEDGER.getByName(name)
    await stub.openConversation('c1', 'user:ada', { title: 'plans' })
    const one = await stub.say('c1', { role: 'user', content: 'one', author: 'user:ada' })
    await stub.say('c1', { role: 'assistant', content: 'two', author: 'agent:a' })
    await stub.fork('c1', one.id, 'alt', 'user:ada')
    await stub.say('c1', { role: 'assistant', content: 'two (alt)', author: 'agent:a', branch: 'alt' })
    const before = [await stub.transcript('c1'), await stub.transcript('c1', { branch: 'alt' })]
    await abortAllDurableObjects()
    const fresh = env.LEDGER.getByName(name)
    const after = [await fresh.transcript('c1'), await fresh.transcript('c1', { branch: 'alt' })]
    expect(after).toEqual(before)
    expect(after.map((t) => t.turns.map((turn) => turn.content))).toEqual([
      ['one', 'two'],
      ['one', 'two (alt)'],
    ])
  })
})
