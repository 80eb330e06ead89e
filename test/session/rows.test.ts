/**
 * Billed rows per turn: storage bills every row and index entry written, so what one turn
 * writes is a cost that must not creep back up. A one-step turn (admitted, drain started,
 * prompted, step started, text, step ended, drain ended: seven events, plus the admission's
 * receipt and the graph chain writer's cursor) writes at most 16 rows in the session's own
 * storage, the same at 10 tokens as at 2,000. The meter's rows and the graph's chain of turns
 * are counted and printed beside it. A session's first turn writes 10 more, once: its context
 * epoch starts (one more event) and the baseline and offered tools are stored as artifacts; the
 * load harness (`npm run load`) gives every session one turn, so it counts first turns.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { graphName } from '../../objects/graph/namespace.ts'
import { countRows, type RowCount } from '../support/rows.ts'
import { events, newSession, ownerCaller, postJson, types, waitIdle } from '../support/session.ts'

/** The counter installed in an object's isolate, read back by the next `runInDurableObject`. */
const installed = new Map<string, RowCount>()

async function install(name: string, stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_object: unknown, ctx: DurableObjectState) => void installed.set(name, countRows(ctx.storage)))
}

async function read(name: string, stub: DurableObjectStub): Promise<{ total: number; by: Record<string, number> }> {
  return runInDurableObject(stub, () => {
    const rows = installed.get(name)!
    const out = { total: rows.total(), by: rows.byStatement() }
    rows.restore()
    return out
  })
}

async function meteredTurns(): Promise<number> {
  return (await env.METERS.getByName(ownerCaller.id).totals()).turns
}

/** Rows one prompt's turn writes in the session, the meter and the graph, after a warm-up turn. */
async function oneTurn(text: string) {
  const { id, stub } = await newSession('rows')
  await postJson(`/v1/sessions/${id}/prompt`, { id: 'warm', text: 'hello' })
  await waitIdle(id)
  await stub.writeChain(ownerCaller)
  const metered = await meteredTurns()
  const meter = env.METERS.getByName(ownerCaller.id)
  const graph = env.GRAPHS.getByName(graphName(ownerCaller))
  await install('session', stub)
  await install('meter', meter)
  await install('graph', graph)
  const before = (await events(id)).length
  await postJson(`/v1/sessions/${id}/prompt`, { id: 'm1', text })
  await waitIdle(id)
  await stub.writeChain(ownerCaller)
  while ((await meteredTurns()) < metered + 1) await new Promise((r) => setTimeout(r, 10))
  const written = types((await events(id)).slice(before))
  // The meter also takes the gate's request counts in the same window: printed, not asserted.
  return { written, session: await read('session', stub), meter: await read('meter', meter), graph: await read('graph', graph) }
}

/** Rows a new session's first turn writes in the session. */
async function firstTurn() {
  const { id, stub } = await newSession('rows-first')
  await install('session', stub)
  await postJson(`/v1/sessions/${id}/prompt`, { id: 'first', text: 'hello' })
  await waitIdle(id)
  await stub.writeChain(ownerCaller)
  const written = types((await events(id)).slice(1))
  return { written, session: await read('session', stub) }
}

describe('billed rows per turn', () => {
  it('a one-step turn writes at most 16 rows in the session, flat in tokens', async () => {
    const short = await oneTurn('say something short')
    const long = await oneTurn('/tokens 2000')
    expect(short.written).toEqual(['admitted', 'drain.started', 'prompted', 'step.started', 'text', 'step.ended', 'drain.ended'])
    expect(long.written).toEqual(short.written)
    console.log(
      `rows per one-step turn: session ${short.session.total} (2,000 tokens: ${long.session.total}), meter ${short.meter.total}, graph chain ${short.graph.total}\n` +
        JSON.stringify({ session: short.session.by, meter: short.meter.by, graph: short.graph.by }, null, 1),
    )
    expect(short.session.total).toBeLessThanOrEqual(16)
    expect(long.session.total).toBe(short.session.total)
    // Two rows per event (the row and its id entry), the admission's receipt, the graph chain's cursor.
    expect(short.session.total).toBe(short.written.length * 2 + 2)
  })

  it("a session's first turn writes 10 rows more, once: the epoch's start and two artifacts", async () => {
    const first = await firstTurn()
    const later = await oneTurn('say something short')
    expect(first.written).toEqual(['admitted', 'drain.started', 'epoch.started', 'prompted', 'step.started', 'text', 'step.ended', 'drain.ended'])
    console.log(`rows of a session's first turn: ${first.session.total} (a later turn: ${later.session.total})\n` + JSON.stringify(first.session.by, null, 1))
    // The epoch.started event (2 rows), then the context baseline and the offered tools, each an
    // artifact row and a chunk row, each with its primary-key index entry (4 rows).
    expect(first.session.total).toBe(later.session.total + 2 + 2 * 4)
  })

  it("the meter's record of a turn is two rows", async () => {
    const meter = env.METERS.getByName('rows-meter')
    await meter.totals()
    await install('meter', meter)
    await meter.turn({ session: 's1', step: 'st1', usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 }, cost: null })
    expect((await read('meter', meter)).total).toBe(2)
  })
})
