/**
 * A background's identity (pure): what the resident process was started *as*. It binds the app
 * version, the installation scope (whose installation: the local browser today, a signed-in
 * person later), the runtime generation (the shell's kernel build), the background path and the
 * security/origin mode of its frame. When any of them changes — an upgrade, a reinstall, an
 * authority change — the running process is no longer that identity: the kernel reloads it and
 * everything bound to the old one (its endpoints and calls, grants from and to the app,
 * delegation tokens of its sessions) ends.
 *
 * @example
 * const before = backgroundIdentity(manifest, { scope: 'local', generation: 1 })
 * const after = backgroundIdentity({ ...manifest, version: '1.1.0' }, { scope: 'local', generation: 1 })
 * sameIdentity(before, after) // false: reload
 */
import type { AppManifest } from './manifest.ts'

/** Every app frame is a sandboxed, opaque-origin iframe; a different mode would be a different identity. */
export const ORIGIN_MODE = 'sandboxed-opaque'

/** Bumped when the kernel's contract with frames changes; part of every identity. */
export const RUNTIME_GENERATION = 1

export interface BackgroundIdentity {
  app: string
  version: string
  scope: string
  generation: number
  path: string
  origin: typeof ORIGIN_MODE
}

/** The identity a manifest's background runs as in `context`; null for an app without one. */
export function backgroundIdentity(manifest: AppManifest, context: { scope: string; generation?: number }): BackgroundIdentity | null {
  const path = manifest.entries.background
  if (!path) return null
  return { app: manifest.id, version: manifest.version, scope: context.scope, generation: context.generation ?? RUNTIME_GENERATION, path, origin: ORIGIN_MODE }
}

/** Do two identities name the same resident process? */
export function sameIdentity(a: BackgroundIdentity | null, b: BackgroundIdentity | null): boolean {
  if (!a || !b) return a === b
  return a.app === b.app && a.version === b.version && a.scope === b.scope && a.generation === b.generation && a.path === b.path && a.origin === b.origin
}
