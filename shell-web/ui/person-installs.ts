/**
 * A signed-in person's installs, run by the shell. The list is the server's
 * (`GET /v1/apps/installs`): what the person installed there, from this shell,
 * the CLI or curl, is what the shell runs, and it survives a reload because it
 * is read again on sign-in. Each install's frontend is its package's files, at
 * the address the server gives the person's install (`files`, a path
 * capability for the opaque app frames, which never see the token). Installing
 * or upgrading goes through the API first and reaches the kernel after: an
 * upgrade is `kernel.upgrade`, which reloads the app when its version or files
 * changed, ending everything bound to the old build.
 *
 * @example
 * const installs = new PersonInstalls(connection.client, { install, upgrade, uninstall, has })
 * const skipped = await installs.load()  // [{ app, reason }] the shell could not run
 * await installs.install(pkg)            // upload + install (or upgrade) + run
 */
import type { NeuronClient } from '../../client/index.ts'
import type { Installer } from '../kernel/installs/install-offer.ts'
import { manifestOfPackage } from '../kernel/installs/package-manifest.ts'

/** What the shell does with a manifest (main.ts: the kernel, and the workspace around it). */
export interface InstallHooks {
  has(app: string): boolean
  install(manifest: unknown): void
  upgrade(manifest: unknown): void
  uninstall(app: string): void
}

/** The demo apps' packages, as the build writes them (shell-web/apps/packages.ts). */
export const DEMO_PACKAGES = ['/packages/notes.json', '/packages/planner.json']

export class PersonInstalls implements Installer {
  #installed = new Map<string, { version: string; hash: string }>()

  constructor(
    private readonly client: NeuronClient,
    private readonly hooks: InstallHooks,
  ) {}

  installed(app: string): { version: string; hash: string } | undefined {
    return this.#installed.get(app)
  }

  /** Runs every install of the person; returns those the shell could not run, with the reason. */
  async load(): Promise<{ app: string; reason: string }[]> {
    const skipped: { app: string; reason: string }[] = []
    for (const item of await this.client.apps.installs()) {
      this.#installed.set(item.app, { version: item.version, hash: item.hash })
      try {
        this.#run(await this.client.apps.package(item.hash), item.files)
      } catch (error) {
        skipped.push({ app: item.app, reason: (error as Error).message })
      }
    }
    return skipped
  }

  /** Uploads `pkg`, installs it for the person (or upgrades their installed version), then runs it. */
  async install(pkg: unknown): Promise<{ app: string; version: string; hash: string; from: string | null }> {
    const stored = await this.client.apps.upload(pkg as never)
    const done = this.#installed.has(stored.app) ? await this.client.apps.app(stored.app).upgrade(stored.hash) : { ...(await this.client.apps.install(stored.hash)), from: null }
    this.#installed.set(done.app, { version: done.version, hash: done.hash })
    const listed = (await this.client.apps.installs()).find((i) => i.app === done.app)
    this.#run(pkg, listed?.files ?? null)
    return done
  }

  /** Installs the demo apps the build packaged (a person's first sign-in, or the Install demo apps button). */
  async installDemos(): Promise<void> {
    for (const url of DEMO_PACKAGES) {
      const res = await fetch(url, { cache: 'no-store' })
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
      const pkg = (await res.json()) as { manifest: { app: string } }
      if (!this.#installed.has(pkg.manifest.app)) await this.install(pkg)
    }
  }

  /** Uninstalls `app` for the person (the server first), then removes it from the shell. */
  async uninstall(app: string): Promise<void> {
    await this.client.apps.app(app).uninstall()
    this.#installed.delete(app)
    if (this.hooks.has(app)) this.hooks.uninstall(app)
  }

  #run(pkg: unknown, files: string | null) {
    if (!files) throw new Error('the server gave no address for its files (TICKET_SECRET is not set)')
    const manifest = manifestOfPackage(pkg, files)
    const id = (manifest as { id: string }).id
    if (this.hooks.has(id)) this.hooks.upgrade(manifest)
    else this.hooks.install(manifest)
  }
}
