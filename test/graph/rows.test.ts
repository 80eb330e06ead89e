/**
 * What a session's turn costs in its owner's graph, in billed rows, and that the graph's
 * query verbs are answered through an index after the edge table lost its rowid:
 *
 * - a one-step turn's conversation chain (user turn, assistant turn, `follows` ×2,
 *   `prompted`, `produced`) writes 26 rows: 3 per node envelope (the row, its id and
 *   topic index entries), 5 per edge (the envelope's 3 and the edge index's 2)
 * - every statement the verbs send is put through `EXPLAIN QUERY PLAN`: none scans the
 *   log or the edge table
 * - the migration turns a graph the old schema built (edge keyed by rowid, two indexes)
 *   into the new one with every edge kept and still answered
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { drizzle } from 'drizzle-orm/durable-sqlite'
import { migrate } from 'drizzle-orm/durable-sqlite/migrator'
import { describe, expect, it } from 'vitest'
import migrations from '../../migrations/legacy/graph/migrations.js'
import { migrate as migrateTables } from '../../objects/core/migrations.ts'
import { type GraphObject, TABLES } from '../../objects/graph/graph-object.ts'
import { Graph } from '../../objects/graph/graph.ts'
import { type ChainOp, type ChainState, chainStep, emptyChain } from '../../objects/graph/turns.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { countRows } from '../support/rows.ts'
import { plansOf } from '../support/query-plans.ts'

const graphOf = (name: string) => env.GRAPHS.getByName(`principal:idp#${name}`)
const owner = (name: string) => ({ id: `idp#${name}`, claims: [] as string[] })

/** The session events of `turns` one-step turns, as the session's log holds them. */
function sessionEvents(turns: number): Stored[] {
  const events: Stored[] = []
  const add = (type: string, payload: Record<string, unknown>) => {
    const seq = events.length + 1
    events.push({ v: 1, id: seq.toString(16).padStart(32, '0').padEnd(64, 'f'), seq, topic: 'session.s1', type, parent: null, author: 'session', time: 1000 + seq, headers: [], artifacts: [], payload } as unknown as Stored)
  }
  add('session.next.created', { provider: 'local', model: 'echo-1' })
  for (let t = 0; t < turns; t++) {
    add('session.next.admitted', { messageId: `m${t}`, text: `question ${t}` })
    add('session.next.prompted', { messageIds: [`m${t}`] })
    add('session.next.step.started', { provider: 'local', model: 'echo-1', step: `s${t}` })
    add('session.next.text', { text: `answer ${t}`, step: `s${t}` })
    add('session.next.step.ended', { step: `s${t}` })
  }
  return events
}

/** The chain's writes, one batch per turn (the first batch also creates the conversation). */
function batches(turns: number, author: string): ChainOp[][] {
  let state: ChainState = emptyChain()
  const out: ChainOp[][] = [[]]
  for (const event of sessionEvents(turns)) {
    const step = chainStep(state, event, 's1', author)
    state = step.state
    if (event.type === 'session.next.admitted') out.push([])
    out.at(-1)!.push(...step.ops)
  }
  return out
}

describe('the conversation chain in billed rows', () => {
  it('a one-step turn writes 26 rows in the graph, the same at turn 2 and turn 20', () =>
    runInDurableObject(graphOf('rows') as DurableObjectStub<GraphObject>, (object: GraphObject, ctx) => {
      const caller = owner('rows')
      const [opening, ...turns] = batches(20, caller.id)
      object.applyChain(caller, opening!)
      const perTurn: number[] = []
      for (const ops of turns) {
        const rows = countRows(ctx.storage)
        object.applyChain(caller, ops)
        perTurn.push(rows.total())
        rows.restore()
      }
      // The first turn also writes the model's agent node (3 rows), once per graph.
      expect(perTurn[0]).toBe(29)
      expect(new Set(perTurn.slice(1))).toEqual(new Set([26]))
      // Sent again (a crash before the session stored its cursor), a batch writes nothing.
      const rows = countRows(ctx.storage)
      object.applyChain(caller, turns[5]!)
      expect(rows.total()).toBe(0)
      rows.restore()
    }))
})

/** The statements the graph's verbs send that read edges (inserts are the chain's writes). */
const readsEdges = (query: string) => /\bedge\b/.test(query) && !/^\s*insert/i.test(query)

describe('the graph query plans', () => {
  it('every verb reads the edge table and the log through a key or an index', () =>
    runInDurableObject(graphOf('plans') as DurableObjectStub<GraphObject>, (object: GraphObject, ctx) => {
      const caller = owner('plans')
      for (const ops of batches(30, caller.id)) object.applyChain(caller, ops)
      const graph = new Graph(new Ledger(ctx.storage), ctx.storage)
      const turn = graph.neighbours('node.conversation.s1', { direction: 'in', type: 'follows' }).items[0]!.source
      const pruned = graph.neighbours(turn, { direction: 'in' }).items[0]!
      graph.prune(pruned.id, 'test', caller.id)
      const plans = plansOf(ctx.storage, {
        'neighbours out': () => graph.neighbours(turn, { type: 'follows' }),
        'neighbours in': () => graph.neighbours(turn, { direction: 'in', type: 'follows' }),
        'neighbours any type': () => graph.neighbours(turn, { direction: 'in' }),
        'edge by id': () => graph.edge(pruned.id),
        'between': () => graph.between(turn, 'node.conversation.s1'),
        'paths': () => graph.paths(turn, { types: ['follows'], maxDepth: 3 }),
        'fold': () => graph.fold(turn),
        'link (cycle check)': () => graph.link({ source: 'node.conversation.s1', target: turn, type: 'mentions', author: caller.id }),
      }, readsEdges)
      console.log(plans.map((p) => `${p.verb.padEnd(20)} ${p.plan}`).join('\n'))
      expect(plans.map((p) => p.verb)).toEqual(expect.arrayContaining(['neighbours out', 'neighbours in', 'edge by id', 'paths', 'fold', 'between']))
      for (const { verb, plan } of plans) expect(plan, verb).not.toMatch(/\bSCAN (log|edge|e|l)\b(?! USING)/)
    }))
})

describe('the edge table migration on a graph the old schema built', () => {
  it('keeps every edge, answers the verbs, and writes 5 rows per edge instead of 6', () =>
    runInDurableObject(graphOf('migrate') as DurableObjectStub<GraphObject>, async (_object, ctx) => {
      const storage = ctx.storage
      for (const table of ['log', 'edge', 'retired', 'memory_text', 'artifact', 'artifact_chunk', 'schema_registry', '__drizzle_migrations']) {
        storage.sql.exec(`drop table if exists ${table}`)
      }
      const folder = migrations as unknown as Parameters<typeof migrate>[1]
      const old = { journal: { ...folder.journal, entries: folder.journal.entries.slice(0, 4) }, migrations: Object.fromEntries(Object.entries(folder.migrations).slice(0, 4)) }
      await migrate(drizzle(storage), old)
      const edgeSql = () => storage.sql.exec<{ sql: string }>(`select sql from sqlite_master where name = 'edge'`).one().sql
      expect(edgeSql()).not.toMatch(/WITHOUT ROWID/)

      const caller = owner('migrate')
      const all = batches(6, caller.id)
      let graph = new Graph(new Ledger(storage), storage)
      const apply = (ops: ChainOp[]) => {
        for (const op of ops) op.op === 'node' ? graph.putNode(op.node) : graph.link(op.edge)
      }
      for (const ops of all.slice(0, 4)) apply(ops)
      const oldRows = countRows(storage)
      apply(all[4]!)
      // The old schema: 3 rows per node envelope, 6 per edge (3 for the envelope, the edge row and its 2 indexes).
      expect(oldRows.total()).toBe(30)
      oldRows.restore()
      const first = graph.neighbours('node.conversation.s1', { direction: 'in', type: 'follows' }).items[0]!
      const before = { fold: graph.fold(first.source), paths: graph.paths(first.source, { direction: 'in', types: ['follows'], maxDepth: 8 }), edge: graph.edge(first.id) }

      // The graph's objects built before composition carry the old folder: its last migration is applied on their next wake.
      migrateTables(storage, TABLES)
      expect(edgeSql()).toMatch(/WITHOUT ROWID/)
      graph = new Graph(new Ledger(storage), storage)
      // The edges written before the migration are found by id, by either end and by a walk, as before.
      expect(graph.fold(first.source)).toEqual(before.fold)
      expect(graph.paths(first.source, { direction: 'in', types: ['follows'], maxDepth: 8 })).toEqual(before.paths)
      expect(graph.edge(first.id)).toEqual(before.edge)
      expect(before.paths.items.length).toBeGreaterThan(5)
      expect(storage.sql.exec<{ n: number }>('select count(*) as n from edge').one().n).toBe(
        storage.sql.exec<{ n: number }>("select count(*) as n from log where type like 'edge.%' and type != 'edge.retired'").one().n,
      )
      const newRows = countRows(storage)
      apply(all[5]!)
      expect(newRows.total()).toBe(26)
      newRows.restore()
    }))
})
