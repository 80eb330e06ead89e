import { describe, expect, it } from 'vitest'
import { bridge } from '../../objects/agent-link/bridge.ts'
import { clear, mayOverlap } from '../../objects/orchestration/clearance.ts'
import { checkPlan, dependsOn, planProblem } from '../../objects/orchestration/plan.ts'
import { parseCommands } from '../../objects/llm/local/commands.ts'
import { NeuronError } from '../../objects/core/errors.ts'

const p = (id: string, ...needs: string[]) => ({ id, needs })

describe('plan checks', () => {
  it('a DAG passes', () => {
    expect(planProblem([p('a'), p('b', 'a'), p('c', 'a'), p('d', 'b', 'c')])).toBeNull()
  })

  it('names a duplicate id, an unknown dependency, and the cycle itself', () => {
    expect(planProblem([p('a'), p('a')])).toEqual({ kind: 'duplicate-id', package: 'a' })
    expect(planProblem([p('a', 'ghost')])).toEqual({ kind: 'unknown-dependency', package: 'a', needs: 'ghost' })
    expect(planProblem([p('a', 'c'), p('b', 'a'), p('c', 'b'), p('d')])).toEqual({ kind: 'cycle', cycle: ['a', 'c', 'b', 'a'] })
    expect(planProblem([p('a', 'a')])).toEqual({ kind: 'cycle', cycle: ['a', 'a'] })
  })

  it('a cycle deep in a long chain is found without recursion limits', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => p(`n${i}`, ...(i > 0 ? [`n${i - 1}`] : ['n4999'])))
    expect(planProblem(chain)?.kind).toBe('cycle')
  })

  it('checkPlan throws INVALID_PLAN (400) carrying the problem', () => {
    try {
      checkPlan([p('a', 'b'), p('b', 'a')])
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(NeuronError)
      expect((error as NeuronError).status).toBe(400)
      expect((error as NeuronError).code).toBe('INVALID_PLAN')
      expect((error as NeuronError).details).toEqual({ kind: 'cycle', cycle: ['a', 'b', 'a'] })
    }
  })

  it('dependsOn follows needs transitively', () => {
    const needs = new Map([['c', ['b']], ['b', ['a']], ['a', []]])
    expect(dependsOn(needs, 'c', 'a')).toBe(true)
    expect(dependsOn(needs, 'a', 'c')).toBe(false)
  })
})

describe('clearance', () => {
  const needs = new Map<string, string[]>([['a', []], ['b', []], ['c', ['a']]])
  it('write/write and write/read between unordered packages are conflicts, each with the edge that resolves it', () => {
    const others = new Map([['a', { reads: [], writes: ['file:x'] }]])
    expect(clear(needs, 'b', { reads: [], writes: ['file:x'] }, others)).toEqual({ conflicts: [{ with: 'a', resource: 'file:x', kind: 'write/write' }], edges: [['a', 'b']] })
    expect(clear(needs, 'b', { reads: ['file:x'], writes: [] }, others).conflicts).toEqual([{ with: 'a', resource: 'file:x', kind: 'read/write' }])
    const reader = new Map([['a', { reads: ['file:x'], writes: [] }]])
    expect(clear(needs, 'b', { reads: [], writes: ['file:x'] }, reader).conflicts).toEqual([{ with: 'a', resource: 'file:x', kind: 'write/read' }])
  })

  it('workspace keys are globs: overlapping writers conflict, disjoint ones do not', () => {
    const writer = (...writes: string[]) => new Map([['a', { reads: [], writes }]])
    const writes = (...keys: string[]) => ({ reads: [], writes: keys })
    expect(clear(needs, 'b', writes('workspace:src/a.ts'), writer('workspace:src/**')).conflicts).toEqual([{ with: 'a', resource: 'workspace:src/a.ts', kind: 'write/write' }])
    expect(clear(needs, 'b', writes('workspace:src/lib/**'), writer('workspace:src/*.ts')).edges).toEqual([['a', 'b']])
    expect(clear(needs, 'b', writes('workspace:docs/x.md'), writer('workspace:*.md')).edges).toEqual([['a', 'b']])
    expect(clear(needs, 'b', { reads: ['workspace:src/'], writes: [] }, writer('workspace:src/a.ts')).conflicts).toEqual([{ with: 'a', resource: 'workspace:src/', kind: 'read/write' }])
    expect(clear(needs, 'b', writes('workspace:docs/**'), writer('workspace:src/**')).conflicts).toEqual([])
    expect(clear(needs, 'b', writes('workspace:src/b.ts'), writer('workspace:src/a.ts')).conflicts).toEqual([])
    expect(clear(needs, 'b', writes('workspace:docs/x.txt'), writer('workspace:*.md')).conflicts).toEqual([])
    // Not a workspace key: names are equal or different, never globs.
    expect(clear(needs, 'b', writes('file:src/a.ts'), writer('file:src/**')).conflicts).toEqual([])
  })

  it('mayOverlap is exact against a literal path and safe between globs', () => {
    const cases: [string, string, boolean][] = [
      ['src/**', 'src/a.ts', true],
      ['src/*.ts', 'src/a.md', false],
      ['/README.md', 'README.md', true],
      ['src/**', 'docs/**', false],
      ['src/*.ts', 'src/*.md', true],
      ['{src,lib}/**', 'docs/a', false],
      ['*.ts', 'docs/**', true],
      // Every path the glob matches is under src/, whatever follows.
      ['src/[', 'docs/a', false],
      // Past the brace depth a glob does not compile: it overlaps everything.
      [`src/${'{'.repeat(9)}a${'}'.repeat(9)}`, 'docs/**', true],
    ]
    for (const [a, b, overlaps] of cases) {
      expect([a, b, mayOverlap(a, b)]).toEqual([a, b, overlaps])
      expect([b, a, mayOverlap(b, a)]).toEqual([b, a, overlaps])
    }
  })

  it('read/read, disjoint keys, and packages already ordered by a path are not conflicts', () => {
    expect(clear(needs, 'b', { reads: ['file:x'], writes: [] }, new Map([['a', { reads: ['file:x'], writes: [] }]])).conflicts).toEqual([])
    expect(clear(needs, 'b', { reads: [], writes: ['file:y'] }, new Map([['a', { reads: [], writes: ['file:x'] }]])).conflicts).toEqual([])
    expect(clear(needs, 'c', { reads: [], writes: ['file:x'] }, new Map([['a', { reads: [], writes: ['file:x'] }]])).conflicts).toEqual([])
  })
})

describe('the bridge stage', () => {
  const draft = { topic: 'orchestration.o.agent.t', type: 'x', author: 'a', time: 1, payload: {} }
  it('retries a failed send with doubling back-off, then delivers', async () => {
    const slept: number[] = []
    let calls = 0
    const dead: unknown[] = []
    const b = bridge({ tries: 4, baseDelayMs: 10, sleep: async (ms) => void slept.push(ms), deadLetter: (d) => dead.push(d) })
    const sent = await b.deliver(draft, async (d) => {
      if (++calls < 3) throw new Error('network')
      return d.type
    })
    expect(sent).toEqual({ ok: true, answer: 'x', tries: 3 })
    expect(slept).toEqual([10, 20])
    expect(dead).toEqual([])
  })

  it('after the bounded number of tries the draft lands on the dead-letter address, with why', async () => {
    const dead: unknown[] = []
    const b = bridge({ tries: 3, baseDelayMs: 1, sleep: async () => {}, deadLetter: (d, error) => dead.push({ d, error }) })
    const sent = await b.deliver(draft, async () => {
      throw new Error('down')
    })
    expect(sent).toEqual({ ok: false, error: { code: 'BRIDGE_UNDELIVERABLE', message: 'down', tries: 3 } })
    expect(dead).toEqual([{ d: draft, error: { code: 'BRIDGE_UNDELIVERABLE', message: 'down', tries: 3 } }])
  })

  it('a refusal the receiver decided (4xx) is not retried', async () => {
    let calls = 0
    const b = bridge({ tries: 5, sleep: async () => {}, deadLetter: () => {} })
    const sent = await b.deliver(draft, async () => {
      calls++
      throw new NeuronError('INVALID_DECLARATION', 'bad', { status: 400 })
    })
    expect(calls).toBe(1)
    expect(sent.ok).toBe(false)
  })
})

describe('the local model under a beat', () => {
  const text = ['/beat declare /tool declare {"writes":["file:a"]}', '/beat execute /tool report {"result":"ok"}']
  it('obeys only the command lines of the beat the message names', () => {
    expect(parseCommands(['beat: declare', ...text].join('\n')).tools).toEqual([{ name: 'declare', arguments: '{"writes":["file:a"]}' }])
    expect(parseCommands(['beat: execute', ...text].join('\n')).tools).toEqual([{ name: 'report', arguments: '{"result":"ok"}' }])
    expect(parseCommands(text.join('\n')).tools).toEqual([])
  })
})
