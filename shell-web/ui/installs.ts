/**
 * Installs kept across page reloads, on the trusted page's own storage (app frames are opaque
 * and cannot reach it). Until the shell signs a person in they are kept per browser; a signed-in
 * shell keeps them per person instead. A stored manifest is parsed again by the kernel on load,
 * like any other, and one that no longer parses is skipped, not fatal.
 *
 * @example
 * const stored = loadInstalls(localStorage)          // manifests, or null if never saved
 * kernel.onChange(() => saveInstalls(localStorage, kernel.apps()))
 */
import type { AppManifest } from '../kernel/manifest.ts'

const KEY = 'neutron.installs.v1'

/** The manifests saved last, or null when nothing was ever saved (first start: install the demo apps). */
export function loadInstalls(storage: Storage): unknown[] | null {
  try {
    const raw = storage.getItem(KEY)
    const parsed: unknown = raw === null ? null : JSON.parse(raw)
    return Array.isArray(parsed) ? parsed : null
  } catch {
    return null
  }
}

/** Saves the installed manifests (the whole list, every time: it is small and bounded by the kernel). */
export function saveInstalls(storage: Storage, manifests: readonly AppManifest[]): void {
  try {
    storage.setItem(KEY, JSON.stringify(manifests))
  } catch (error) {
    console.warn('installs not saved', error)
  }
}

const DEMOS_KEY = 'neutron.demos.v1'

/**
 * Whether this browser already installed the demo apps for `person` (their first sign-in here).
 * After that, an uninstalled demo app stays uninstalled; the Apps section's button brings it back.
 */
export function demosInstalledFor(storage: Storage, person: string): boolean {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(DEMOS_KEY) ?? '[]')
    return Array.isArray(parsed) && parsed.includes(person)
  } catch {
    return false
  }
}

/** Remembers that the demo apps were installed for `person` (at most the last 32 people). */
export function markDemosInstalled(storage: Storage, person: string): void {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(DEMOS_KEY) ?? '[]')
    const people = Array.isArray(parsed) ? parsed.filter((p) => p !== person) : []
    storage.setItem(DEMOS_KEY, JSON.stringify([...people, person].slice(-32)))
  } catch (error) {
    console.warn('not saved', error)
  }
}
