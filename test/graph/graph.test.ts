import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { GraphObject } from '../../objects/graph/graph-object.ts'
import { Graph } from '../../objects/graph/graph.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { uniqueName } from '../support/ledger.ts'

const ada = { id: 'idp#ada', claims: [] as string[] }

/** Runs `fn` with a Graph over a fresh, migrated GraphObject of ada's. */
function withGraph<T>(fn: (graph: Graph, state: DurableObjectState) => T): Promise<T> {
  const stub = env.GRAPHS.getByName(`principal:${ada.id}-${uniqueName()}`)
  return runInDurableObject(stub, (_o: GraphObject, state) => fn(new Graph(new Ledger(state.storage), state.storage), state))
}

function items(graph: Graph, kind: string, ...ids: string[]) {
  return ids.map((id) => graph.putNode({ kind, id, text: `${kind} ${id}`, author: ada.id }).node.address)
}

describe('graph', () => {
  it('check refuses, writing nothing, what link and putNode would refuse; a node earlier in the batch counts', () =>
    withGraph((graph, state) => {
      const [t1, t2] = items(graph, 'turn', 't1', 't2')
      graph.link({ source: t2!, target: t1!, type: 'follows', author: ada.id })
      const rows = () => state.storage.sql.exec('select count(*) as n from log').one().n
      const before = rows()
      const code = (writes: Parameters<Graph['check']>[0]) => {
        try {
          graph.check(writes)
          return null
        } catch (error) {
          return (error as { code: string }).code
        }
      }
      const edge = (source: string, target: string, type: string) => ({ edge: { source, target, type, author: ada.id } })
      expect(code([edge(t1!, t1!, 'follows')])).toBe('SELF_EDGE')
      expect(code([edge(t1!, 'node.turn.nope', 'follows')])).toBe('UNKNOWN_NODE')
      expect(code([edge(t1!, t2!, 'follows')])).toBe('CYCLE')
      expect(code([{ node: { kind: 'turn', id: 't1', text: 'other text', author: ada.id } }])).toBe('NODE_EXISTS')
      // A conversation cut back before its first turn points at itself: allowed for truncates.
      expect(code([edge(t1!, t1!, 'truncates')])).toBeNull()
      expect(code([{ node: { kind: 'conversation', id: 'c9', author: ada.id } }, edge('node.conversation.c9', t2!, 'forks')])).toBeNull()
      expect(rows()).toBe(before)
    }))

  it('folds a node over its incident edges; a superseded role keeps both readings in history', () =>
    withGraph((graph) => {
      const [b1, b2, b3] = items(graph, 'backlog-item', 'b1', 'b2', 'b3')
      const first = graph.link({ source: b1!, target: b2!, type: 'blocked-by', author: ada.id }).edge
      const revised = graph.link({ source: b1!, target: b3!, type: 'blocked-by', author: ada.id, supersedes: first.id, reason: 'b2 shipped; b3 is what blocks now' }).edge
      const state = graph.fold(b1!)
      expect(state.current.map((e) => [e.type, e.target])).toEqual([['blocked-by', b3]])
      expect(state.history.map((e) => e.target)).toEqual([b2, b3])
      expect(state.history[0]!.retired).toMatchObject({ how: 'superseded', by: revised.id, reason: 'b2 shipped; b3 is what blocks now' })
      expect(revised.parent).toBe(first.id)
      // The target side folds the same edges: b2 lost its role, b3 gained it.
      expect(graph.fold(b2!).current).toEqual([])
      expect(graph.fold(b2!).history.map((e) => e.id)).toEqual([first.id])
      expect(graph.fold(b3!).current.map((e) => e.id)).toEqual([revised.id])
      // Superseding an edge that is already retired is refused.
      expect(() => graph.link({ source: b1!, target: b2!, type: 'blocked-by', author: ada.id, supersedes: first.id })).toThrow(expect.objectContaining({ code: 'EDGE_RETIRED' }))
    }))

  it('node-level supersedes: both nodes stay readable, each fold names the other', () =>
    withGraph((graph) => {
      const [oldD, newD] = items(graph, 'decision', 'd1', 'd2')
      graph.link({ source: newD!, target: oldD!, type: 'supersedes', author: ada.id })
      expect(graph.fold(oldD!)).toMatchObject({ supersededBy: [newD], node: { text: 'decision d1' } })
      expect(graph.fold(newD!)).toMatchObject({ supersedes: [oldD], node: { text: 'decision d2' } })
    }))

  it('neighbours by type and direction, paged by cursor; paths are bounded walks', () =>
    withGraph((graph) => {
      const nodes = items(graph, 'turn', 't0', 't1', 't2', 't3', 't4')
      for (let i = 1; i < nodes.length; i++) graph.link({ source: nodes[i]!, target: nodes[i - 1]!, type: 'follows', author: ada.id })
      const [hub] = items(graph, 'project', 'p')
      for (const node of nodes) graph.link({ source: hub!, target: node, type: 'regards', author: ada.id })
      const page1 = graph.neighbours(hub!, { type: 'regards', limit: 2 })
      const page2 = graph.neighbours(hub!, { type: 'regards', limit: 2, after: page1.next! })
      const page3 = graph.neighbours(hub!, { type: 'regards', limit: 2, after: page2.next! })
      expect([...page1.items, ...page2.items, ...page3.items].map((e) => e.target)).toEqual(nodes)
      expect(page3.next).toBeNull()
      expect(graph.neighbours(nodes[2]!, { direction: 'in' }).items.map((e) => [e.type, e.source])).toEqual([['follows', nodes[3]], ['regards', hub]])
      expect(graph.neighbours(nodes[2]!, { type: 'follows' }).items.map((e) => e.target)).toEqual([nodes[1]])
      const walk = graph.paths(nodes[4]!, { types: ['follows'], maxDepth: 3 })
      expect(walk.items.map((r) => [r.address, r.depth])).toEqual([[nodes[3], 1], [nodes[2], 2], [nodes[1], 3]])
      const to = graph.paths(hub!, { to: nodes[0]!, maxDepth: 2 })
      // Directly, and through t1 (which follows t0): every path within the depth, shortest first.
      expect(to.items.map((r) => r.edges.length)).toEqual([1, 2])
      expect(graph.paths(nodes[4]!, { types: ['follows'], maxDepth: 16, limit: 2 }).next).toBe(2)
    }))

  it('refuses bad edges with their codes and writes nothing', () =>
    withGraph((graph) => {
      const [a, b, c] = items(graph, 'turn', 'a', 'b', 'c')
      graph.link({ source: b!, target: a!, type: 'follows', author: ada.id })
      graph.link({ source: c!, target: b!, type: 'follows', author: ada.id })
      const head = graph.ledger.head()
      const refuse = (draft: Parameters<Graph['link']>[0], code: string) => expect(() => graph.link(draft)).toThrow(expect.objectContaining({ code }))
      refuse({ source: 'node.turn.nope', target: a!, type: 'follows', author: ada.id }, 'UNKNOWN_NODE')
      refuse({ source: a!, target: 'node.turn.nope', type: 'follows', author: ada.id }, 'UNKNOWN_NODE')
      refuse({ source: a!, target: a!, type: 'follows', author: ada.id }, 'SELF_EDGE')
      refuse({ source: a!, target: c!, type: 'follows', author: ada.id }, 'CYCLE')
      refuse({ source: a!, target: b!, type: 'follows', author: ada.id, supersedes: '0'.repeat(64) }, 'UNKNOWN_EDGE')
      expect(graph.ledger.head()).toBe(head)
      // A type no rule names allows what the chain types forbid: the vocabulary grows by use.
      expect(graph.link({ source: a!, target: a!, type: 'mentions', author: ada.id }).duplicate).toBe(false)
      expect(graph.link({ source: a!, target: c!, type: 'mentions', author: ada.id }).duplicate).toBe(false)
      expect(() => graph.putNode({ kind: 'knowledge', text: 'x'.repeat(16 * 1024 + 1), author: ada.id })).toThrow(expect.objectContaining({ code: 'TEXT_TOO_LARGE' }))
      expect(() => graph.putNode({ kind: 'turn', id: 'a', text: 'other', author: ada.id })).toThrow(expect.objectContaining({ code: 'NODE_EXISTS' }))
      expect(graph.putNode({ kind: 'turn', id: 'a', text: 'turn a', author: ada.id }).created).toBe(false)
    }))

  it('an edge re-sent with the same content is recognised by its content id, not written twice', () =>
    withGraph((graph, state) => {
      const [a, b] = items(graph, 'turn', 'a', 'b')
      const draft = { source: b!, target: a!, type: 'follows', author: ada.id, time: 1_700_000_000_000 }
      const first = graph.link(draft)
      const again = graph.link(draft)
      expect(again).toMatchObject({ duplicate: true, edge: { id: first.edge.id, seq: first.edge.seq } })
      expect(state.storage.sql.exec('select count(*) as n from edge').one().n).toBe(1)
    }))
})
