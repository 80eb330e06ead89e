import { describe, expect, it } from 'vitest'
import { backgroundIdentity, sameIdentity } from '../../../shell-web/kernel/installs/identity.ts'
import { parseManifest } from '../../../shell-web/kernel/installs/manifest.ts'

const notes = parseManifest({ id: 'notes', version: '1.0.0', title: 'Notes', entries: { tile: '/apps/notes/tile', background: '/apps/notes/background' }, tools: [] })

describe('background identity', () => {
  it('binds version, installation scope, runtime generation, background path and origin mode: a change of any is a new identity', () => {
    const base = backgroundIdentity(notes, { scope: 'local' })
    expect(base).toEqual({ app: 'notes', version: '1.0.0', scope: 'local', generation: 1, path: '/apps/notes/background', origin: 'sandboxed-opaque' })
    expect(sameIdentity(base, backgroundIdentity({ ...notes, title: 'Renamed' }, { scope: 'local' }))).toBe(true)
    expect(sameIdentity(base, backgroundIdentity({ ...notes, version: '1.0.1' }, { scope: 'local' }))).toBe(false)
    expect(sameIdentity(base, backgroundIdentity(notes, { scope: 'person:ada' }))).toBe(false)
    expect(sameIdentity(base, backgroundIdentity(notes, { scope: 'local', generation: 2 }))).toBe(false)
    expect(sameIdentity(base, backgroundIdentity({ ...notes, entries: { ...notes.entries, background: '/apps/notes/tray' } }, { scope: 'local' }))).toBe(false)
    expect(sameIdentity(base, { ...base!, origin: 'other' as never })).toBe(false)
  })

  it('an app without a background has none', () => {
    expect(backgroundIdentity({ ...notes, entries: { tile: '/apps/notes/tile' } }, { scope: 'local' })).toBeNull()
    expect(sameIdentity(null, null)).toBe(true)
  })
})
