import { env } from 'cloudflare:workers'
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { GraphObject } from '../../objects/graph/graph-object.ts'
import type { EdgeView } from '../../objects/graph/node-state.ts'
import { uniqueName } from '../support/ledger.ts'

const ada = { id: 'idp#ada', claims: [] as string[] }
const HUB = 'node.project.hub'

/** Every live edge reaching the hub, paged through the query verb. */
async function incoming(stub: DurableObjectStub<GraphObject>): Promise<EdgeView[]> {
  const all: EdgeView[] = []
  let after: number | undefined
  for (;;) {
    const page = await stub.neighbours(ada, HUB, { direction: 'in', limit: 100, ...(after === undefined ? {} : { after }) })
    all.push(...(page.items as EdgeView[]))
    if (page.next === null) return all
    after = page.next
  }
}

/** Rows of the edge index and edge envelopes of the log: each envelope is indexed exactly once. */
function counts(stub: DurableObjectStub<GraphObject>) {
  return runInDurableObject(stub, (_o, state) => {
    const sql = state.storage.sql
    return {
      index: sql.exec<{ n: number }>('select count(*) as n from edge').one().n,
      log: sql.exec<{ n: number }>("select count(*) as n from log where type like 'edge.%' and type != 'edge.retired'").one().n,
      memories: sql.exec<{ n: number }>('select count(*) as n from memory_text').one().n,
      remembered: sql.exec<{ address: string }>('select address from memory_text').toArray().map((row) => row.address),
    }
  })
}

describe('graph context death', () => {
  it('abort mid-write: every acknowledged edge is present exactly once, and the index matches the log', async () => {
    const name = `principal:${ada.id}`
    const stub = env.GRAPHS.getByName(name)
    await stub.putNode(ada, { kind: 'project', id: 'hub', text: 'hub' })
    for (let i = 0; i < 200; i++) await stub.putNode(ada, { kind: 'turn', id: `t${i}`, text: `turn ${i}` })

    let acknowledged = 0
    let abort!: () => void
    const aborted = new Promise<void>((resolve) => (abort = resolve)).then(() => abortAllDurableObjects())
    const inFlight = Array.from({ length: 200 }, (_, i) =>
      stub.link(ada, { source: `node.turn.t${i}`, target: HUB, type: 'regards', payload: { i } }).then(
        ({ edge }) => {
          if (++acknowledged === 20) abort()
          return edge.id
        },
        () => null,
      ),
    )
    await aborted
    const acked = (await Promise.all(inFlight)).filter((id): id is string => id !== null)
    expect(acked.length).toBeGreaterThanOrEqual(20)

    const fresh = env.GRAPHS.getByName(name)
    const edges = await incoming(fresh)
    const ids = edges.map((edge) => edge.id)
    for (const id of acked) expect(ids).toContain(id)
    expect(new Set(ids).size).toBe(ids.length)
    const { index, log } = await counts(fresh)
    expect(index).toBe(log)
    expect(index).toBe(edges.length)
  })

  it('abort mid-remember: every acknowledged memory is recalled, none twice, none half-written', async () => {
    const caller = { id: `idp#${uniqueName('death')}`, claims: [] }
    const name = `principal:${caller.id}`
    const stub = env.GRAPHS.getByName(name)
    let acknowledged = 0
    let abort!: () => void
    const aborted = new Promise<void>((resolve) => (abort = resolve)).then(() => abortAllDurableObjects())
    const inFlight = Array.from({ length: 100 }, (_, i) =>
      stub.remember(caller, { text: `zebra fact number ${i}` }).then(
        ({ memory }) => {
          if (++acknowledged === 10) abort()
          return memory.address
        },
        () => null,
      ),
    )
    await aborted
    const acked = (await Promise.all(inFlight)).filter((a): a is string => a !== null)
    const fresh = env.GRAPHS.getByName(name)
    const recalled = (await fresh.recall(caller, { query: 'zebra', limit: 50 })).items.map((m) => m.address)
    expect(new Set(recalled).size).toBe(recalled.length)
    const { memories, index, remembered } = await counts(fresh)
    // Each memory is one remembers edge and one full-text row; nothing was left half-written.
    expect(memories).toBe(index)
    expect(new Set(remembered).size).toBe(remembered.length)
    for (const address of acked) expect(remembered).toContain(address)
  })

  it('a chain write re-sent after a crash is recognised, not duplicated', async () => {
    const caller = { id: `idp#${uniqueName('resend')}`, claims: [] }
    const name = `principal:${caller.id}`
    const ops = [
      { op: 'node' as const, node: { kind: 'turn', id: 'a', text: 'a', author: caller.id, time: 1 } },
      { op: 'node' as const, node: { kind: 'turn', id: 'b', text: 'b', author: caller.id, time: 2 } },
      { op: 'edge' as const, edge: { source: 'node.turn.b', target: 'node.turn.a', type: 'follows', author: caller.id, time: 2 } },
    ]
    expect(await env.GRAPHS.getByName(name).applyChain(caller, ops)).toEqual({ written: 3 })
    await abortAllDurableObjects()
    expect(await env.GRAPHS.getByName(name).applyChain(caller, ops)).toEqual({ written: 0 })
    expect((await counts(env.GRAPHS.getByName(name))).index).toBe(1)
  })
})
