/**
 * Every decision a real orchestration writes satisfies its type's registered payload schema
 * (decision-schemas.ts), every decision type has one, and the agent sessions it runs write only
 * events their own schemas (event-schemas.ts) accept. Checked by the real schema registry.
 */
import { describe, expect, it } from 'vitest'
import { DECISION_SCHEMAS, decisionSchemaRef, registerDecisionSchemas } from '../../objects/orchestration/decision-schemas.ts'
import { ORCH, type OrchEvent } from '../../objects/orchestration/events.ts'
import { eventSchemaRef, registerEventSchemas } from '../../objects/session/events/event-schemas.ts'
import { EVENT_TYPES, type EventType } from '../../objects/session/events/events.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { refusals } from '../support/schemas.ts'
import { decisions, finished, newOrchestration, script, waitUntil } from '../support/orchestration.ts'
import { events, waitIdle } from '../support/session.ts'

describe('orchestration decision payload schemas', () => {
  it('every decision type has a schema the registry takes; a payload off it is refused', () =>
    withLedger(uniqueName('decisions'), (ledger) => {
      const types = Object.values(ORCH)
      expect(types.filter((type) => !(type in DECISION_SCHEMAS))).toEqual([])
      registerDecisionSchemas(ledger.schemas)
      expect(types.filter((type) => ledger.schemas.find(decisionSchemaRef(type))?.plane !== 3)).toEqual([])
      expect(() => ledger.schemas.validate(decisionSchemaRef(ORCH.finished), { status: 'done', reason: 'x' })).toThrow(expect.objectContaining({ code: 'SCHEMA_VIOLATION' }))
      expect(() => ledger.schemas.validate(decisionSchemaRef(ORCH.assigned), { package: 'a', token: 't' })).toThrow(expect.objectContaining({ code: 'SCHEMA_VIOLATION' }))
    }))

  it('a real orchestration writes only decisions, and its agents only session events, that satisfy their schemas', { timeout: 90_000 }, async () => {
    const plan = [
      { id: 'a', needs: [], instructions: script('a done', { writes: ['file:base'] }) },
      { id: 'b', needs: ['a'], instructions: script('b done', { reads: ['file:base'], writes: ['file:x'] }, 40) },
      { id: 'c', needs: ['a'], instructions: script('c done', { reads: ['file:base'], writes: ['file:x'] }, 40) },
    ]
    const { id } = await newOrchestration({ plan })
    const view = await waitUntil(id, finished, 60_000)
    expect(view.status).toBe('completed')
    const log = await decisions(id)
    // The agents' sessions may still be closing their drains: read them once they are idle.
    for (const p of view.packages) await waitIdle(p.session!)
    const agents = (await Promise.all(view.packages.map((p) => events(p.session!)))).flat()
    expect(agents.length).toBeGreaterThan(0)
    await withLedger(uniqueName('decisions'), (ledger) => {
      registerDecisionSchemas(ledger.schemas)
      registerEventSchemas(ledger.schemas)
      expect(refusals(ledger, log, new Set<string>(Object.values(ORCH)), (type) => decisionSchemaRef(type as OrchEvent))).toEqual([])
      expect(refusals(ledger, agents, EVENT_TYPES, (type) => eventSchemaRef(type as EventType))).toEqual([])
    })
    // The run reached the beats of a DAG with a write/write conflict.
    const seen = new Set(log.map((e) => e.type))
    expect([ORCH.created, ORCH.assigned, ORCH.declared, ORCH.cleared, ORCH.executing, ORCH.burned, ORCH.reported, ORCH.finished].filter((type) => !seen.has(type))).toEqual([])
  })
})
