import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../../shell-web/kernel/installs/manifest.ts'
import { acceptsPrivateAction, decideGrantRequest, decideRoute } from '../../../shell-web/kernel/bus/policy.ts'
import { clampTimeout, InFlight, judgeProgress } from '../../../shell-web/kernel/bus/limits.ts'
import { endpointId, parseEndpointId } from '../../../shell-web/protocol/endpoint-id.ts'

const none = { session: false, oneCall: false }

describe('routing policy', () => {
  it('allows the same app and the kernel, requires a grant across apps', () => {
    expect(decideRoute({ sourceApp: 'notes', targetApp: 'notes', grants: none })).toEqual({ allow: true, via: 'same-app' })
    expect(decideRoute({ sourceApp: 'notes', targetApp: 'kernel', grants: none })).toEqual({ allow: true, via: 'kernel' })
    expect(decideRoute({ sourceApp: 'planner', targetApp: 'notes', grants: none })).toMatchObject({ allow: false, code: 'GRANT_REQUIRED' })
    expect(decideRoute({ sourceApp: 'planner', targetApp: 'notes', grants: { session: false, oneCall: true } })).toEqual({ allow: true, via: 'one-call-grant' })
    expect(decideRoute({ sourceApp: 'planner', targetApp: 'notes', grants: { session: true, oneCall: true } })).toEqual({ allow: true, via: 'session-grant' })
  })

  it('only lets an app ask for grants its manifest declares', () => {
    expect(decideGrantRequest({ sourceApp: 'planner', targetApp: 'notes', declared: ['notes'], targetInstalled: true })).toEqual({ ask: true })
    expect(decideGrantRequest({ sourceApp: 'planner', targetApp: 'bank', declared: ['notes'], targetInstalled: true })).toMatchObject({ ask: false, code: 'PERMISSION_DENIED' })
    expect(decideGrantRequest({ sourceApp: 'planner', targetApp: 'notes', declared: ['notes'], targetInstalled: false })).toMatchObject({ ask: false, code: 'PERMISSION_DENIED' })
  })

  it('private-action rules name exact endpoint kinds', () => {
    expect(acceptsPrivateAction('any-endpoint-of-app', 'tray')).toBe(true)
    expect(acceptsPrivateAction('background-only', 'tile')).toBe(false)
    expect(acceptsPrivateAction('background-only', 'background')).toBe(true)
    expect(acceptsPrivateAction('tray-only', 'tile')).toBe(false)
    expect(acceptsPrivateAction('focused-tile', 'tile')).toBe(true)
    expect(acceptsPrivateAction('focused-tile', 'tray')).toBe(false)
    expect(acceptsPrivateAction('focused-tile', 'background')).toBe(false)
    // vetkeys.derive: a tile (focused, checked in the action) or the background; a tray cannot derive
    expect(acceptsPrivateAction('tile-or-background', 'tile')).toBe(true)
    expect(acceptsPrivateAction('tile-or-background', 'background')).toBe(true)
    expect(acceptsPrivateAction('tile-or-background', 'tray')).toBe(false)
  })

  it('a manifest declares the derivation paths its keys may come from, bounded', () => {
    const base = { id: 'notes', version: '1', title: 'Notes', entries: { tile: '/apps/notes/tile' } }
    expect(parseManifest(base).vetkeys).toEqual([])
    expect(parseManifest({ ...base, vetkeys: ['notes/v1', 'drafts:2'] }).vetkeys).toEqual(['notes/v1', 'drafts:2'])
    expect(() => parseManifest({ ...base, vetkeys: ['has space'] })).toThrow(/vetkeys/)
    expect(() => parseManifest({ ...base, vetkeys: Array.from({ length: 9 }, (_, i) => `p${i}`) })).toThrow(/vetkeys/)
  })
})

describe('limits', () => {
  it('gives each source 8 slots and refuses the 9th with a retry hint', () => {
    const slots = new InFlight()
    for (let i = 0; i < 8; i++) expect(slots.take('a').ok).toBe(true)
    expect(slots.take('a')).toMatchObject({ ok: false, retryAfterMs: expect.any(Number) })
    expect(slots.take('b').ok).toBe(true)
    slots.release('a')
    expect(slots.take('a').ok).toBe(true)
  })

  it('clamps timeouts and rejects nonsense', () => {
    expect(clampTimeout(undefined)).toBe(30_000)
    expect(clampTimeout(10 ** 9)).toBe(300_000)
    expect(clampTimeout(-1)).toBeNull()
    expect(clampTimeout(NaN)).toBeNull()
  })

  it('judges progress: 2,000 per request, 64 KiB each, JSON only', () => {
    expect(judgeProgress({ done: 1 }, 0)).toEqual({ forward: true })
    expect(judgeProgress({ done: 1 }, 2_000)).toMatchObject({ forward: false, code: 'PROGRESS_LIMIT' })
    expect(judgeProgress('x'.repeat(64 * 1024), 0)).toMatchObject({ forward: false, code: 'PROGRESS_REJECTED' })
    expect(judgeProgress({ at: new Date() }, 0)).toMatchObject({ forward: false, code: 'PROGRESS_REJECTED' })
  })
})

describe('endpoint ids', () => {
  it('formats and parses exactly the spec forms', () => {
    const ids = [
      endpointId({ app: 'notes', kind: 'background' }),
      endpointId({ app: 'notes', kind: 'tile', tileId: 't1', instanceId: 'ab12' }),
      endpointId({ app: 'notes', kind: 'tray', instanceId: 'cd34' }),
    ]
    expect(ids).toEqual(['app:notes:background', 'app:notes:tile:t1:instance:ab12', 'app:notes:tray:instance:cd34'])
    for (const id of ids) expect(endpointId(parseEndpointId(id)!)).toBe(id)
    for (const bad of ['kernel', 'app:Notes:background', 'app:notes:tile:t1', 'app:notes:background:x', 'app:notes:tray:instance:a:b']) expect(parseEndpointId(bad)).toBeNull()
  })
})
