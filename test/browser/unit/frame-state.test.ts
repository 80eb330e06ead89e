/**
 * What the frame keeps for a reload, read back as hostile input: the route in the URL's hash and
 * the person's tile layout in localStorage. Anything that is not one is dropped, never trusted.
 */
import { describe, expect, it } from 'vitest'
import { hashOf, routeOf } from '../../../shell-web/ui/frame.ts'
import { loadLayout, saveLayout } from '../../../shell-web/ui/tile-layout.ts'

/** A Storage over a Map (node has none). */
function memoryStorage(): Storage {
  const items = new Map<string, string>()
  return { get length() { return items.size }, clear: () => items.clear(), getItem: (k) => items.get(k) ?? null, key: (i) => [...items.keys()][i] ?? null, removeItem: (k) => void items.delete(k), setItem: (k, v) => void items.set(k, String(v)) }
}

describe('the route in the hash', () => {
  it('round-trips every pane and the ids it carries; anything else is the Apps pane', () => {
    for (const route of [{ view: 'sessions' }, { view: 'conversation', session: 'a b/c' }, { view: 'orchestrations', orchestration: 'o1' }, { view: 'memory' }, { view: 'apps' }] as const) {
      expect(routeOf(hashOf(route))).toEqual(route)
    }
    expect(routeOf('')).toEqual({ view: 'apps' })
    expect(routeOf('#/nope')).toEqual({ view: 'apps' })
    expect(routeOf('#token=abc')).toEqual({ view: 'apps' })
    expect(routeOf('#/memory/x')).toEqual({ view: 'memory' }) // an id only where a pane shows one
  })
})

describe('the kept tile layout', () => {
  it('comes back as it was kept, per person', () => {
    const storage = memoryStorage()
    const layout = { active: 1, workspaces: [[{ app: 'notes', params: { q: 'roadmap' } }], [{ app: 'counter', params: {} }]] }
    saveLayout(storage, 'ada', layout)
    expect(loadLayout(storage, 'ada')).toEqual(layout)
    expect(loadLayout(storage, 'grace')).toBeNull()
  })

  it('drops what is not a layout: bad JSON, bad app ids, non-string params, too many tiles', () => {
    const storage = memoryStorage()
    const put = (value: string) => storage.setItem('neuron.shell.tiles:ada', value)
    put('{')
    expect(loadLayout(storage, 'ada')).toBeNull()
    put(JSON.stringify({ active: 'x', workspaces: [] }))
    expect(loadLayout(storage, 'ada')).toBeNull()
    put(JSON.stringify({ active: 0, workspaces: [[{ app: '../evil' }, { app: 'notes', params: { q: 1, ok: 'y' } }, null], 'nope'] }))
    expect(loadLayout(storage, 'ada')).toEqual({ active: 0, workspaces: [[{ app: 'notes', params: { ok: 'y' } }], []] })
    put(JSON.stringify({ active: 0, workspaces: [Array.from({ length: 50 }, () => ({ app: 'notes', params: { q: 'x'.repeat(3000) } }))] }))
    const bounded = loadLayout(storage, 'ada')!
    expect(bounded.workspaces[0]).toHaveLength(12)
    expect(bounded.workspaces[0]![0]!.params).toEqual({})
  })
})
