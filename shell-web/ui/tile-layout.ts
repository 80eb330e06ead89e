/**
 * The signed-in person's open tiles, kept in this browser so a reload reopens them: which apps'
 * tiles each workspace shows (with their params) and which workspace is active. Only the layout is
 * kept, never an app's state (a tile fetches its own snapshot when it mounts) nor any grant (a
 * grant for the page's life is asked for again). Bounded: the workspaces' tile limit, and ids and
 * params are checked on the way back in, since the storage is the browser's, not the shell's.
 *
 * @example
 * saveLayout(localStorage, person.id, workspaces.layout())
 * const kept = loadLayout(localStorage, person.id) // { active: 0, workspaces: [[{ app: 'notes', params: {} }], []] } or null
 */
import { APP_ID } from '../protocol/endpoint-id.ts'
import { LIMITS } from '../protocol/limits.ts'

export interface TileLayout {
  active: number
  workspaces: { app: string; params: Record<string, string> }[][]
}

const keyOf = (person: string) => `neuron.shell.tiles:${person}`
const MAX_PARAM_CHARS = 2_000

/** Keeps `layout` as the person's. */
export function saveLayout(storage: Storage, person: string, layout: TileLayout): void {
  storage.setItem(keyOf(person), JSON.stringify(layout))
}

/** The person's kept layout, or null when there is none (or what is kept is not one). */
export function loadLayout(storage: Storage, person: string): TileLayout | null {
  let kept: unknown
  try {
    kept = JSON.parse(storage.getItem(keyOf(person)) ?? 'null')
  } catch {
    return null
  }
  if (typeof kept !== 'object' || kept === null) return null
  const { active, workspaces } = kept as { active?: unknown; workspaces?: unknown }
  if (!Array.isArray(workspaces) || typeof active !== 'number' || !Number.isInteger(active)) return null
  return {
    active,
    workspaces: workspaces.map((tiles) =>
      (Array.isArray(tiles) ? tiles : [])
        .filter((t): t is { app: string; params?: unknown } => typeof t?.app === 'string' && APP_ID.test(t.app))
        .slice(0, LIMITS.maxTilesPerWorkspace)
        .map((t) => ({ app: t.app, params: paramsOf(t.params) })),
    ),
  }
}

function paramsOf(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || JSON.stringify(value).length > MAX_PARAM_CHARS) return {}
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'))
}
