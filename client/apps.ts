/**
 * The caller's apps: upload packages, install, upgrade and uninstall them, and
 * work with one installation (call its backend, grant it origins, store its
 * connections, derive its keys). See docs/backends.md.
 */
import type { Http } from './http.ts'
import type { AppPackageInput, ConnectionInfo, EncryptedKey, Grant, InstallInfo, InstalledApp, StoredPackage, VetkeyInput } from './types.ts'

type Summary = { app: string; version: string; hash: string }

export class AppsClient {
  readonly #http: Http

  constructor(http: Http) {
    this.#http = http
  }

  /**
   * Uploads a package; it is checked whole (and its backend loaded once) before it is stored.
   *
   * @example
   * const { hash } = await neuron.apps.upload(pkg)
   * await neuron.apps.install(hash)
   */
  upload(pkg: AppPackageInput): Promise<StoredPackage> {
    return this.#http.json('POST', '/v1/apps/packages', pkg)
  }

  /** A package the caller uploaded, as stored. */
  package(hash: string): Promise<AppPackageInput> {
    return this.#http.json('GET', `/v1/apps/packages/${encodeURIComponent(hash)}`)
  }

  /** Installs an uploaded package for the caller. */
  install(hash: string): Promise<Summary> {
    return this.#http.json('POST', '/v1/apps/installs', { package: hash })
  }

  /** The caller's installs; `files` is where the shell's frames read each one's frontend. */
  async installs(): Promise<(InstallInfo & { files: string | null })[]> {
    return (await this.#http.json<{ items: (InstallInfo & { files: string | null })[] }>('GET', '/v1/apps/installs')).items
  }

  /** A handle on the caller's installation of `app` (nothing is fetched until you call it). */
  app(app: string): AppHandle {
    return new AppHandle(this.#http, app)
  }
}

export class AppHandle {
  readonly #http: Http
  readonly #path: string

  constructor(http: Http, app: string) {
    this.#http = http
    this.#path = `/v1/apps/installs/${encodeURIComponent(app)}`
  }

  /** The installed version and its interface. */
  view(): Promise<InstalledApp> {
    return this.#http.json('GET', this.#path)
  }

  /** Upgrades to another uploaded version of the same app. */
  upgrade(hash: string): Promise<Summary & { from: string | null }> {
    return this.#http.json('PUT', this.#path, { package: hash })
  }

  uninstall(): Promise<Summary & { uninstalled: true }> {
    return this.#http.json('DELETE', this.#path)
  }

  /**
   * Calls a backend method; input and output are checked against the installed interface. With
   * `kind`, a method of the other kind is refused (409 `METHOD_KIND_MISMATCH`) and nothing runs.
   *
   * @example
   * const { output } = await neuron.apps.app('counter').call('increment', { by: 2 })
   * await neuron.apps.app('counter').call('count', {}, { kind: 'query' })
   */
  call<T = unknown>(method: string, input: unknown, options: { kind?: 'query' | 'update' } = {}): Promise<{ output: T }> {
    return this.#http.json('POST', `${this.#path}/call`, options.kind ? { method, input, kind: options.kind } : { method, input })
  }

  async grants(): Promise<Grant[]> {
    return (await this.#http.json<{ items: Grant[] }>('GET', `${this.#path}/backend-calls`)).items
  }

  /** Lets the backend reach `origin` (a URL's origin is kept). */
  grant(origin: string): Promise<Grant> {
    return this.#http.json('POST', `${this.#path}/backend-calls`, { origin })
  }

  revoke(origin: string): Promise<{ origin: string; revoked: boolean }> {
    return this.#http.json('DELETE', `${this.#path}/backend-calls?origin=${encodeURIComponent(origin)}`)
  }

  async connections(): Promise<ConnectionInfo[]> {
    return (await this.#http.json<{ items: ConnectionInfo[] }>('GET', `${this.#path}/connections`)).items
  }

  /** Stores (replaces) a connection's secret; it is never readable through this client again. */
  setConnection(name: string, secret: string): Promise<ConnectionInfo> {
    return this.#http.json('PUT', `${this.#path}/connections/${encodeURIComponent(name)}`, { secret })
  }

  deleteConnection(name: string): Promise<{ name: string; deleted: boolean }> {
    return this.#http.json('DELETE', `${this.#path}/connections/${encodeURIComponent(name)}`)
  }

  /** Opens a connection: needs the kernel's claim `scope:apps.connections.reveal`. */
  revealConnection(name: string): Promise<{ name: string; secret: string }> {
    return this.#http.json('POST', `${this.#path}/connections/${encodeURIComponent(name)}/reveal`)
  }

  /** The caller's key for this app and `derivationPath`, encrypted to `transportPublicKey`. */
  deriveKey(input: VetkeyInput): Promise<EncryptedKey> {
    return this.#http.json('POST', `${this.#path}/vetkeys`, input)
  }
}
