/**
 * What the trusted page keeps in this browser's storage about apps (app frames are opaque and
 * cannot reach it). Signed out, nothing: the shell runs the built-in demo apps only, so no
 * manifest stored here is ever run without a signed-in person; an older shell kept its installs
 * under `neutron.installs.v1`, which is forgotten. Signed in, the person's installs live on the
 * server; here is only the note that this browser installed the demo apps for a person once.
 *
 * @example
 * forgetStoredInstalls(localStorage)            // signed out: whatever an older shell kept, gone
 * if (!demosInstalledFor(localStorage, me.id)) await installDemos()
 */

const KEY = 'neutron.installs.v1'

/** Forgets the installs an older shell kept in this browser (they are never run). */
export function forgetStoredInstalls(storage: Storage): void {
  try {
    storage.removeItem(KEY)
  } catch (error) {
    console.warn('stored installs not forgotten', error)
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
