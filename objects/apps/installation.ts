/**
 * An installation: one person's install of one app, with its own Durable
 * Object (AppBackendObject) and ledger. This module names that object and
 * folds the install history (installed, upgraded, uninstalled) into what is
 * installed now. Pure: no platform imports.
 */
import type { Stored } from '../ledger/envelope.ts'
import type { MethodSpec } from './package.ts'

/** The topic install events are written to, in the installation's ledger and in the person's shelf. */
export const INSTALL_TOPIC = 'app.install'

/** What an install or upgrade records: the version, and what the kernel needs to call the backend. */
export interface InstalledVersion {
  person: string
  app: string
  version: string
  /** The package's content id. */
  hash: string
  methods: Record<string, MethodSpec>
  /** The backend module's source, when the package has one. */
  module: string | null
}

/** What storing a package answers. */
export interface StoredPackage {
  hash: string
  app: string
  version: string
  size: number
  /** True when these exact bytes were stored before. */
  duplicate: boolean
}

/** One row of a person's install list. */
export interface InstallInfo {
  app: string
  version: string
  hash: string
  installedAt: string
  updatedAt: string
}

/**
 * The Durable Object name of `person`'s installation of `app`: unambiguous for any two strings.
 *
 * @example
 * env.APP_BACKENDS.getByName(installationName('idp#ada', 'notes'))
 */
export function installationName(person: string, app: string): string {
  return JSON.stringify([person, app])
}

/**
 * The directory key of a person's shelf (their packages, install list and tool modules).
 *
 * @example
 * await exists(env, shelfKey('idp#ada'))
 */
export function shelfKey(person: string): string {
  return `apps:${person}`
}

/**
 * The fold of install events into a person's installs, by app.
 *
 * @example
 * ledger.fold(INSTALL_TOPIC, foldInstalls, new Map())
 */
export function foldInstalls(installs: Map<string, InstallInfo>, envelope: Stored): Map<string, InstallInfo> {
  const { app, version, hash } = envelope.payload as { app: string; version: string; hash: string }
  const at = new Date(envelope.time).toISOString()
  const next = new Map(installs)
  if (envelope.type === 'app.uninstalled') next.delete(app)
  else next.set(app, { app, version, hash, installedAt: envelope.type === 'app.installed' ? at : (installs.get(app)?.installedAt ?? at), updatedAt: at })
  return next
}
