/**
 * Every query verb an object serves is answered through an index, never a scan of the log:
 * the statements the `Ledger` really runs are captured and put through `EXPLAIN QUERY PLAN`,
 * in an embedded ledger (a session's: by topic, by id, latest, head, causality upward, append),
 * a directory shard, and the standalone LedgerObject (every verb). The table is printed for docs/benchmarks.md.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { uniqueName } from '../support/ledger.ts'
import { type Plan, plansOf } from '../support/query-plans.ts'

/** Runs each verb once on a `Ledger` over `storage` and explains what it sent (schema reads aside). */
function ledgerPlans(storage: DurableObjectStorage, verbs: Record<string, (ledger: Ledger) => unknown>): Plan[] {
  const ledger = new Ledger(storage)
  const bound = Object.fromEntries(Object.entries(verbs).map(([name, run]) => [name, () => run(ledger)]))
  return plansOf(storage, bound, (query) => !/sqlite_master/.test(query))
}

function seed(storage: DurableObjectStorage): { id: string; child: string } {
  const ledger = new Ledger(storage)
  let parent: string | null = null
  const ids: string[] = []
  for (let i = 0; i < 50; i++) {
    const topic = i % 5 === 0 ? 'session.s1.config' : 'session.s1'
    parent = ledger.append({ topic, type: i % 2 ? 'note' : 'step', author: 'user:ada', time: 1000 + i, parent, payload: { i } }).envelope.id
    ids.push(parent)
  }
  return { id: ids[10]!, child: ids[40]! }
}

const scan = /\bSCAN log\b/

describe('query plans', () => {
  it('an embedded ledger (a session) serves its verbs through the primary key and the id index', () =>
    runInDurableObject(env.SESSIONS.getByName(uniqueName('plans')), (_object, ctx) => {
      const { id, child } = seed(ctx.storage)
      const plans = ledgerPlans(ctx.storage, {
        'append': (l) => l.append({ topic: 'session.s1', type: 'note', author: 'user:ada', time: 1, payload: 'x' }),
        'by topic': (l) => l.byTopic('session.s1', { after: 10, limit: 5 }),
        'latest': (l) => l.latest('session.s1.config'),
        'get': (l) => l.get(id),
        'seq of id': (l) => l.seqOf(id),
        'head': (l) => l.head(),
        'ancestors': (l) => l.ancestors(child, { limit: 5 }),
        'count since': (l) => l.countSince('session.s1', 1010),
      })
      console.log(plans.map((p) => `${p.verb.padEnd(12)} ${p.plan}`).join('\n'))
      for (const { verb, plan } of plans) expect(plan, verb).not.toMatch(scan)
    }))

  it('a directory shard serves append, by topic (both ways), latest, get and head through an index', () =>
    runInDurableObject(env.DIRECTORY.getByName(uniqueName('plans')), (_object, ctx) => {
      const { id } = seed(ctx.storage)
      const plans = ledgerPlans(ctx.storage, {
        'append': (l) => l.append({ topic: 'directory.sessions.a', type: 'note', author: 'object:directory', time: 1, payload: 'x' }),
        'by topic': (l) => l.byTopic('session.s1', { after: 10, limit: 5 }),
        'by topic, newest first': (l) => l.byTopicNewest('session.s1', { before: 10, limit: 5 }),
        'latest': (l) => l.latest('directory.title.a'),
        'get': (l) => l.get(id),
        'head': (l) => l.head(),
      })
      console.log(plans.map((p) => `${p.verb.padEnd(12)} ${p.plan}`).join('\n'))
      for (const { verb, plan } of plans) expect(plan, verb).not.toMatch(scan)
    }))

  it('the standalone LedgerObject serves every verb through an index', () =>
    runInDurableObject(env.LEDGER.getByName(uniqueName('plans')), (_object, ctx) => {
      const { id, child } = seed(ctx.storage)
      const plans = ledgerPlans(ctx.storage, {
        'append': (l) => l.append({ topic: 'session.s1', type: 'note', author: 'user:ada', time: 1, payload: 'x' }),
        'by topic': (l) => l.byTopic('session.s1', { after: 10, limit: 5 }),
        'by type': (l) => l.byType('note', { after: 10, limit: 5 }),
        'by time': (l) => l.byTime(1010, 1020, { limit: 5 }),
        'get': (l) => l.get(id),
        'head': (l) => l.head(),
        'ancestors': (l) => l.ancestors(child, { limit: 5 }),
        'descendants': (l) => l.descendants(id, { limit: 5 }),
      })
      console.log(plans.map((p) => `${p.verb.padEnd(12)} ${p.plan}`).join('\n'))
      for (const { verb, plan } of plans) expect(plan, verb).not.toMatch(scan)
    }))
})
