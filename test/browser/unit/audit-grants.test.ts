import { describe, expect, it } from 'vitest'
import { AuditRing, type AuditInput } from '../../../shell-web/kernel/bus/audit.ts'
import { Grants } from '../../../shell-web/kernel/consent/grants.ts'
import { parseManifest } from '../../../shell-web/kernel/installs/manifest.ts'
import { summarize } from '../../../shell-web/kernel/bus/summary.ts'

const entry = (app: string, tool = 'x'): AuditInput => ({ caller: `app:${app}:background`, callerApp: app, target: 'kernel', tool, status: 'ok', durationMs: 1 })

describe('audit ring', () => {
  it('keeps the last 200 entries', () => {
    const ring = new AuditRing()
    for (let i = 0; i < 150; i++) ring.record(entry('a'))
    for (let i = 0; i < 150; i++) ring.record(entry('b'))
    expect(ring.list()).toHaveLength(200)
    expect(ring.list().at(-1)!.seq).toBe(300)
  })

  it('one app cannot push everyone else out: it evicts its own entries past half the ring', () => {
    const ring = new AuditRing()
    for (let i = 0; i < 50; i++) ring.record(entry('quiet'))
    for (let i = 0; i < 1000; i++) ring.record(entry('noisy'))
    expect(ring.forApp('quiet')).toHaveLength(50)
    expect(ring.forApp('noisy')).toHaveLength(100)
  })

  it('a refusal is not erased by the same app making harmless calls', () => {
    const ring = new AuditRing()
    ring.record({ ...entry('h', 'echo'), status: 'error', code: 'GRANT_REQUIRED', target: 'app:target:background' })
    for (let i = 0; i < 1_000; i++) ring.record(entry('h'))
    expect(ring.forApp('h').filter((e) => e.code === 'GRANT_REQUIRED')).toHaveLength(1)
    expect(ring.forApp('h')).toHaveLength(100)
    // ordinary failures of a permitted call are not denials: they go first too
    ring.record({ ...entry('h'), status: 'error', code: 'TOOL_ERROR' })
    for (let i = 0; i < 100; i++) ring.record(entry('h'))
    expect(ring.forApp('h').some((e) => e.code === 'TOOL_ERROR')).toBe(false)
  })

  it("an app's denials have a lane of 60 that only its own newer denials push out", () => {
    const ring = new AuditRing()
    const denial = (app: string, n: number) => ({ ...entry(app, `t${n}`), status: 'error' as const, code: 'BAD_REQUEST' as const })
    for (let i = 0; i < 70; i++) ring.record(denial('h', i))
    for (let i = 0; i < 500; i++) ring.record(entry('h'))
    for (let i = 0; i < 500; i++) ring.record(entry('other'))
    const kept = ring.forApp('h').filter((e) => e.code === 'BAD_REQUEST').map((e) => e.tool)
    expect(kept).toEqual(Array.from({ length: 60 }, (_, i) => `t${i + 10}`))
    expect(ring.list()).toHaveLength(200)
  })

  it('a full ring evicts the oldest ordinary entry of anyone before any denial', () => {
    const ring = new AuditRing()
    for (const app of ['a', 'b', 'c']) ring.record({ ...entry(app), status: 'ignored', code: 'UNKNOWN_SOURCE' })
    for (const app of ['a', 'b', 'c', 'd']) for (let i = 0; i < 100; i++) ring.record(entry(app))
    expect(ring.list().filter((e) => e.code === 'UNKNOWN_SOURCE')).toHaveLength(3)
    expect(ring.list()).toHaveLength(200)
  })

  it("colluding apps filling the ring with denials cannot flush another app's: each keeps its oldest, its latest and a fair share", () => {
    const ring = new AuditRing()
    const denial = (app: string, n: number) => ({ ...entry(app, `t${n}`), status: 'error' as const, code: 'GRANT_REQUIRED' as const })
    for (let i = 0; i < 62; i++) ring.record(denial('victim', i))
    for (const app of ['c1', 'c2', 'c3', 'c4']) for (let i = 0; i < 60; i++) ring.record(denial(app, i))
    expect(ring.list()).toHaveLength(200)
    const victim = ring.forApp('victim').map((e) => e.tool)
    // Its lane of 60 kept its oldest (t0 and t1 were pushed out by its own newer ones) and latest, and its share of the ring.
    expect(victim[0]).toBe('t2')
    expect(victim.at(-1)).toBe('t61')
    expect(victim.length).toBeGreaterThanOrEqual(200 / 5 - 1)
    // Every colluder keeps its oldest and its latest.
    for (const app of ['c1', 'c2', 'c3', 'c4']) {
      const kept = ring.forApp(app).map((e) => e.tool)
      expect(kept[0]).toBe('t0')
      expect(kept.at(-1)).toBe('t59')
    }
  })

  it('folds a burst of identical security events into one entry with a count', () => {
    let now = 0
    const ring = new AuditRing(200, 100, 60, () => now)
    for (let i = 0; i < 500; i++) ring.note({ ...entry('h'), code: 'LATE_PROGRESS', status: 'ignored' })
    expect(ring.list()).toHaveLength(1)
    expect(ring.list()[0]!.count).toBe(500)
    now += 5_000
    ring.note({ ...entry('h'), code: 'LATE_PROGRESS', status: 'ignored' })
    expect(ring.list()).toHaveLength(2)
  })
})

describe('grants', () => {
  const planner = { endpoint: 'app:planner:tile:t1:instance:a', app: 'planner' }

  it('a one-call grant is bound to the asking endpoint and used up once', () => {
    const grants = new Grants()
    grants.grant(planner, 'notes', 'call')
    expect(grants.view(planner.endpoint, 'planner', 'notes')).toEqual({ session: false, oneCall: true })
    expect(grants.view('app:planner:tile:t2:instance:b', 'planner', 'notes').oneCall).toBe(false)
    grants.consume(planner.endpoint, 'notes')
    expect(grants.view(planner.endpoint, 'planner', 'notes').oneCall).toBe(false)
  })

  it('requests wait for the person, and are withdrawn when the caller gives up', async () => {
    const grants = new Grants()
    const abort = new AbortController()
    const pending = grants.request(planner, 'notes', 'session', 'agenda', abort.signal)
    if (pending === 'UI_BUSY') throw new Error('unexpected')
    expect(grants.pending()).toHaveLength(1)
    grants.decide(grants.pending()[0]!.id, 'session')
    await expect(pending).resolves.toBe('session')
    expect(grants.sessions()).toEqual([{ sourceApp: 'planner', targetApp: 'notes' }])

    const second = grants.request(planner, 'bank', 'call', '', abort.signal)
    abort.abort()
    await expect(second).resolves.toBe('withdrawn')
    expect(grants.pending()).toHaveLength(0)
  })

  it('bounds pending requests per app', () => {
    const grants = new Grants()
    const signal = new AbortController().signal
    for (let i = 0; i < 4; i++) expect(grants.request({ endpoint: `app:planner:tile:t${i}:instance:a`, app: 'planner' }, 'notes', 'call', '', signal)).toBeInstanceOf(Promise)
    expect(grants.request({ endpoint: 'app:planner:tile:t9:instance:a', app: 'planner' }, 'notes', 'call', '', signal)).toBe('UI_BUSY')
  })
})

describe('manifests and summaries', () => {
  it('refuses entries outside the shell app folders', () => {
    const base = { id: 'x1', version: '1', title: 'X', entries: {} }
    expect(() => parseManifest({ ...base, entries: { tile: 'https://evil.example/tile' } })).toThrow(/entry/)
    expect(() => parseManifest({ ...base, entries: { tile: '/apps/../index' } })).toThrow(/entry/)
    expect(() => parseManifest({ ...base, id: 'kernel!' })).toThrow(/id/)
    expect(parseManifest({ ...base, entries: { tile: '/apps/x1/tile' } }).entries.tile).toBe('/apps/x1/tile')
  })

  it('summaries stay bounded however large the value', () => {
    const big = { text: 'x'.repeat(1_000_000), list: Array.from({ length: 100_000 }, (_, i) => i) }
    const s = summarize(big, 160)
    expect(s.length).toBeLessThanOrEqual(160)
    expect(s.endsWith('…')).toBe(true)
  })
})

describe('private entries', () => {
  it('a refused private action is kept for the person but left out of what the app reads', () => {
    const ring = new AuditRing()
    ring.record({ ...entry('h', 'tools.expose'), status: 'error', code: 'BAD_REQUEST', private: true })
    ring.record({ ...entry('h', 'echo'), status: 'error', code: 'GRANT_REQUIRED' })
    expect(ring.list().map((e) => e.tool)).toEqual(['tools.expose', 'echo'])
    expect(ring.forApp('h').map((e) => e.tool)).toEqual(['echo'])
  })
})
