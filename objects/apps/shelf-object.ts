/**
 * AppShelfObject: one per person. It keeps the code the person has uploaded:
 * app packages (content-addressed artifacts of the ledger: immutable, stored
 * once however often they are uploaded) with the index of the person's
 * installs, a fold over install events, and the person's tool modules and
 * their versions (objects/modules/store.ts), whose calls it runs. Each
 * installation's state lives in its own AppBackendObject; this index only says
 * what is installed, in which version.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import { TopicFold } from '../core/journal.ts'
import type { Json } from '../ledger/json.ts'
import { Ledger } from '../ledger/ledger.ts'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_TABLES } from '../ledger/tables.ts'
import { answerFailures } from '../core/rpc.ts'
import type { CheckedModule } from '../modules/module.ts'
import { type GateFactory, type ModuleVersion, type StoredModule, ToolModules } from '../modules/store.ts'
import { backendHost } from './run.ts'
import { foldInstalls, INSTALL_TOPIC, type InstallInfo, type StoredPackage } from './installation.ts'
import type { AppPackage } from './package.ts'

const PACKAGES_TOPIC = 'app.packages'
const PACKAGE_KIND = 'application/vnd.neuron.app-package+json'

/** The shelf's tables: the embedded ledger's. */
export const TABLES = tables([LEDGER_TABLES])

export class AppShelfObject extends DurableObject<Env> {
  private readonly ledger: Ledger
  /** The install index, folded over the install events. */
  private readonly installs: TopicFold<Map<string, InstallInfo>>
  /** The person's tool modules: versions, retirements, and their calls. */
  private readonly modules: ToolModules

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.installs = new TopicFold(this.ledger, INSTALL_TOPIC, foldInstalls, () => new Map())
    this.modules = new ToolModules(this.ledger, () => backendHost(env), (options) => (ctx.exports as unknown as { OutboundGate: GateFactory }).OutboundGate(options))
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  /**
   * Stores a checked package's canonical text under its hash, with one envelope naming it.
   *
   * @example
   * await shelf.putPackage('idp#ada', { hash, text, app: 'notes', version: '1.0.0' })
   */
  putPackage(person: string, stored: { hash: string; text: string; app: string; version: string }): StoredPackage {
    const bytes = new TextEncoder().encode(stored.text)
    const payload = { hash: stored.hash, app: stored.app, version: stored.version, size: bytes.byteLength }
    let duplicate = false
    // The time is fixed, so the same package always seals to the same envelope: a re-upload is a duplicate.
    this.ctx.storage.transactionSync(() => {
      this.ledger.artifacts.put(bytes, PACKAGE_KIND, stored.hash)
      duplicate = this.ledger.append({ topic: PACKAGES_TOPIC, type: 'app.package.stored', author: person, time: 0, payload }).duplicate
    })
    return { ...payload, duplicate }
  }

  /** The package stored under `hash`, or null. */
  getPackage(hash: string): AppPackage | null {
    const bytes = this.ledger.artifacts.get(hash)
    return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as AppPackage) : null
  }

  /**
   * One file of package `hash`, only while the person has it installed (the shell's frames read
   * their pages through this); null otherwise.
   */
  installedFile(hash: string, path: string): string | null {
    if (!this.list().some((install) => install.hash === hash)) return null
    const files = this.getPackage(hash)?.files
    return files && Object.hasOwn(files, path) ? files[path]! : null
  }

  /** Records an install event (`app.installed`, `app.upgraded`, `app.uninstalled`) in the index. */
  record(person: string, type: 'app.installed' | 'app.upgraded' | 'app.uninstalled', install: { app: string; version: string; hash: string }): void {
    this.ledger.append({ topic: INSTALL_TOPIC, type, author: person, payload: install })
  }

  /** The person's installs, by app name. */
  list(): InstallInfo[] {
    return [...this.installs.current().values()].sort((a, b) => a.app.localeCompare(b.app))
  }

  /** Stores a checked tool module as its next version (store.ts: names against the person's other modules, the count). */
  putModule(person: string, checked: CheckedModule): StoredModule {
    return this.modules.put(person, checked, (write) => this.ctx.storage.transactionSync(write))
  }

  /** Retires a tool module. */
  retireModule(person: string, id: string): { module: string; retired: boolean } {
    return this.modules.retire(person, id)
  }

  /** The current version of each tool module (declarations, no code): what sessions offer. */
  toolModules(): ModuleVersion[] {
    return this.modules.list()
  }

  /** A tool module's current version with its code, or null. */
  toolModule(id: string): (ModuleVersion & { code: string }) | null {
    return this.modules.get(id)
  }

  /** Runs one tool of a module version (store.ts). */
  callModuleTool(person: string, id: string, hash: string, tool: string, input: unknown): Promise<{ output: Json }> {
    return this.modules.call(person, id, hash, tool, input)
  }

  /** Whether a module version may fetch `origin` now (asked by the outbound gate on every request). */
  moduleAllows(id: string, hash: string, origin: string): boolean {
    return this.modules.allows(id, hash, origin)
  }
}

// Expected failures of the RPC surface are answers, not uncaught errors (objects/core/rpc.ts).
answerFailures(AppShelfObject, ['putPackage', 'getPackage', 'installedFile', 'record', 'list', 'putModule', 'retireModule', 'toolModules', 'toolModule', 'callModuleTool', 'moduleAllows'])
