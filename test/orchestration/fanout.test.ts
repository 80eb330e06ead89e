import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { ORCH, type OrchEvent, type OrchPayloads } from '../../objects/orchestration/events.ts'
import { COORDINATION_TAX, packageOfAgent, packageOfPrompts, placement } from '../../objects/orchestration/fanout.ts'
import type { PackageSpec } from '../../objects/orchestration/plan.ts'
import { type Decision, nextDecision, tickActions } from '../../objects/orchestration/schedule.ts'
import { emptyOrchestration, type OrchState, reduceOrchestration } from '../../objects/orchestration/state.ts'

/** A fold driven by hand: record decisions as the object would, minting agent tokens T1, T2, …. */
function harness(plan: Partial<PackageSpec>[]) {
  let state: OrchState = emptyOrchestration()
  let seq = 0
  let minted = 0
  const record = <T extends OrchEvent>(type: T, payload: OrchPayloads[T]) => {
    seq++
    const envelope = { v: 1, id: `e${seq}`, seq, topic: 'orchestration.o', type, parent: null, author: 't', time: seq, headers: [], artifacts: [], payload } as unknown as Stored
    state = reduceOrchestration(state, envelope)
  }
  const specs = plan.map((p) => ({ needs: [], instructions: 'x', clearance: 'dag', ...p }) as PackageSpec)
  record(ORCH.created, { goal: 'g', owner: 'me', share: [], model: 'local/echo-1', plan: specs, budget: {}, maxAttempts: 2, timeoutMs: 60_000 })
  /** Applies decisions until the orchestration waits; returns them. */
  const advance = (): Decision[] => {
    const out: Decision[] = []
    for (let d = nextDecision(state); d; d = nextDecision(state)) {
      out.push(d)
      if (d.kind === 'inline') record(ORCH.inlined, { package: d.package, agent: d.agent ?? `T${++minted}`, reason: d.reason, expectedMs: d.expectedMs, breakEvenMs: d.breakEvenMs })
      else if (d.kind === 'assign') {
        const pkg = state.packages.get(d.package)!
        record(ORCH.assigned, { package: d.package, token: pkg.inline?.agent ?? `T${++minted}`, attempt: pkg.attempts + 1 })
      } else if (d.kind === 'clear') {
        if (d.decision.conflicts.length > 0) record(ORCH.refused, { package: d.package, conflicts: d.decision.conflicts, edges: d.decision.edges })
        else {
          record(ORCH.cleared, { package: d.package, by: 'dag' })
          record(ORCH.executing, { package: d.package, token: state.packages.get(d.package)!.agent! })
        }
      } else if (d.kind === 'block') record(ORCH.blocked, { package: d.package, reason: d.reason })
      else if (d.kind === 'finish') record(ORCH.finished, { status: d.status, reason: d.reason })
    }
    return out
  }
  const declare = (pkg: string, writes: string[] = []) => {
    record(ORCH.declared, { package: pkg, token: state.packages.get(pkg)!.agent!, declaration: { reads: [], writes }, source: `d-${pkg}` })
  }
  const report = (pkg: string) => record(ORCH.reported, { package: pkg, token: state.packages.get(pkg)!.agent!, result: 'ok', artifacts: [], source: `r-${pkg}` })
  const agentOf = (pkg: string) => state.packages.get(pkg)!.agent
  return { advance, declare, report, agentOf, record, state: () => state }
}

const pkgOf = (d: Decision) => ('package' in d ? d.package : null)
const small = { ms: 5 }
const large = { ms: 5_000 }

describe('the fan-out rule', () => {
  it('break-even: below the measured wall-time tax runs inline; at or above it, or unstated, or a retry, gets its own agent', () => {
    const below = COORDINATION_TAX.wallMs - 1
    expect(placement({ expect: { ms: below }, attempts: 0 }, null)).toMatchObject({ inline: true, agent: null })
    expect(placement({ expect: { ms: below }, attempts: 0 }, 'T1')).toMatchObject({ inline: true, agent: 'T1' })
    expect(placement({ expect: { ms: COORDINATION_TAX.wallMs }, attempts: 0 }, 'T1')).toMatchObject({ inline: false })
    expect(placement({ expect: null, attempts: 0 }, 'T1')).toEqual({ inline: false, reason: 'no expected work stated' })
    expect(placement({ expect: { ms: 0 }, attempts: 1 }, 'T1')).toMatchObject({ inline: false, reason: expect.stringContaining('retry') })
    // The reason names both sides of the comparison.
    expect(placement({ expect: { ms: 5 }, attempts: 0 }, null)).toMatchObject({ reason: expect.stringContaining(`5 ms < break-even ${COORDINATION_TAX.wallMs} ms`) })
  })

  it('mixed sizes: small packages share one agent, one at a time; large and unstated ones each get their own', () => {
    const h = harness([{ id: 'a', expect: small }, { id: 'b', expect: small }, { id: 'c', expect: large }, { id: 'd' }, { id: 'e', expect: small }])
    const first = h.advance()
    expect(first.filter((d) => d.kind === 'inline').map(pkgOf)).toEqual(['a', 'b', 'e'])
    // a, c, d start at once; b and e wait for the inline agent, which is working on a.
    expect(first.filter((d) => d.kind === 'assign').map(pkgOf)).toEqual(['a', 'c', 'd'])
    expect(h.agentOf('a')).toBe('T1')
    expect(new Set([h.agentOf('c'), h.agentOf('d')]).size).toBe(2)
    expect([h.agentOf('c'), h.agentOf('d')]).not.toContain('T1')
    expect(h.state().packages.get('b')!.inline).toEqual({ agent: 'T1', reason: expect.stringContaining('inline in one agent') })
    h.declare('a')
    h.advance()
    expect(h.agentOf('b')).toBeNull()
    h.report('a')
    expect(h.advance()).toEqual([{ kind: 'assign', package: 'b' }])
    expect(h.agentOf('b')).toBe('T1')
    h.declare('b')
    h.advance()
    h.report('b')
    expect(h.advance()).toEqual([{ kind: 'assign', package: 'e' }])
    expect(h.agentOf('e')).toBe('T1')
  })

  it('dependencies are respected: a small package is placed only once its needs reported, then joins the same inline agent', () => {
    const h = harness([{ id: 'a', expect: small }, { id: 'b', expect: small, needs: ['a'] }, { id: 'c', expect: large, needs: ['a'] }])
    expect(h.advance().map((d) => [d.kind, pkgOf(d)])).toEqual([['inline', 'a'], ['assign', 'a']])
    h.declare('a')
    h.advance()
    h.report('a')
    expect(h.advance().map((d) => [d.kind, pkgOf(d)])).toEqual([['inline', 'b'], ['assign', 'b'], ['assign', 'c']])
    expect(h.agentOf('b')).toBe('T1')
    expect(h.agentOf('c')).not.toBe('T1')
  })

  it('a conflict at clearance still serialises an inline package, and its queue waits behind it', () => {
    const h = harness([{ id: 'big', expect: large }, { id: 'a', expect: small }, { id: 'b', expect: small }])
    h.advance()
    h.declare('big', ['file:x'])
    h.advance()
    h.declare('a', ['file:x'])
    const refused = h.advance()
    expect(refused[0]).toMatchObject({ kind: 'clear', package: 'a', decision: { conflicts: [{ with: 'big', resource: 'file:x', kind: 'write/write' }], edges: [['big', 'a']] } })
    expect(h.state().packages.get('a')!.needs).toEqual(['big'])
    expect(h.state().packages.get('a')!.beat).toBe('declared')
    expect(h.agentOf('b')).toBeNull()
    h.report('big')
    expect(h.advance()[0]).toMatchObject({ kind: 'clear', package: 'a', decision: { conflicts: [] } })
    expect(h.state().packages.get('a')!.beat).toBe('executing')
    expect(h.agentOf('b')).toBeNull()
  })

  it("an inline agent's inputs go to the package its turn's prompt named, and a retried package leaves the inline agent", () => {
    const h = harness([{ id: 'a', expect: small }, { id: 'b', expect: small }])
    h.advance()
    h.declare('a')
    h.advance()
    h.report('a')
    h.advance()
    // The inline agent T1 holds b now; a late step from a's turn still names a.
    expect(packageOfPrompts('T1', ['execute-T1.a'])).toBe('a')
    expect(packageOfAgent(h.state(), 'T1', ['execute-T1.a'])?.id).toBe('a')
    expect(packageOfAgent(h.state(), 'T1', [])?.id).toBe('b')
    expect(packageOfAgent(h.state(), 'T9', [])).toBeUndefined()
    h.record(ORCH.failed, { package: 'b', token: 'T1', reason: 'timed out', retry: true })
    expect(h.advance()).toEqual([{ kind: 'assign', package: 'b' }])
    expect(h.agentOf('b')).toBe('T2')
    expect(h.state().packages.get('b')!.inline).toBeNull()
  })
})

describe("the tick's work", () => {
  it('re-delivers to at most a turn of active packages per tick, a different window each tick, covering all; deadlines are always applied', () => {
    const h = harness(Array.from({ length: 40 }, (_, i) => ({ id: `w${i}` })))
    h.advance()
    h.record(ORCH.awaitingHuman, { package: 'w0' })
    const active = h.state().packages.size - 1
    const now = h.state().lastSeq + 1
    const seen = new Set<string>()
    for (let tick = 0; tick < Math.ceil(active / 16); tick++) {
      const actions = tickActions(h.state(), now, tick)
      const again = actions.filter((a) => a.kind === 'redeliver')
      expect(again.length).toBeLessThanOrEqual(16)
      for (const a of again) seen.add(a.package)
    }
    expect(seen.size).toBe(active)
    // A clearance past its deadline and a timed-out package end on every tick, whatever the window.
    const late = { ...h.state(), clearanceTimeoutMs: 0, timeoutMs: 1_000_000 }
    for (let tick = 0; tick < 3; tick++) expect(tickActions(late, now + 1, tick).filter((a) => a.kind === 'expire').map((a) => a.package)).toEqual(['w0'])
    expect(tickActions({ ...h.state(), timeoutMs: 0 }, now + 1, 7).filter((a) => a.kind === 'timeout')).toHaveLength(active)
  })
})
