/**
 * AppBackendObject: one per (person, app) installation, with its own SQLite
 * ledger. It holds what is installed (the version, its interface, its backend
 * module), the backend's state (state.ts), the outbound grants (grants.ts) and
 * the sealed connections (connections.ts), each a topic of the ledger.
 *
 * A call: the kernel finds the method in the installed interface (an app
 * never supplies a schema at call time), validates the input, runs the method
 * in the backend's isolate under its bounds (run.ts, loader.ts) with
 * `ReadState` for a query or an update's `WriteState`, and the `Outbound` of
 * this installation's gate, and validates the output; only then does it commit
 * an update. Updates run one at a time, so a backend's read-then-write is never
 * interleaved with another update; queries do not wait for them.
 */
import { DurableObject } from 'cloudflare:workers'
import { openKey, type SealedKey, sealKey } from '../config/credentials.ts'
import type { Env } from '../core/env.ts'
import { NeuronError } from '../core/errors.ts'
import { BACKEND_LIMITS } from '../core/limits.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { assertJson, type Json } from '../ledger/json.ts'
import { TopicFold } from '../core/journal.ts'
import { Ledger } from '../ledger/ledger.ts'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_TABLES } from '../ledger/tables.ts'
import { assertValid, SchemaValidator } from '../ledger/validator.ts'
import { checkOutboundUrl } from '../outbound/policy.ts'
import { answerFailures } from '../core/rpc.ts'
import { CONNECTIONS_TOPIC, type ConnectionInfo, connectionBinding } from './connections.ts'
import { assertRoomForGrant, foldGrants, type Grant, GRANTS_TOPIC } from './grants.ts'
import { INSTALL_TOPIC, type InstalledVersion, installationName } from './installation.ts'
import { type GateProps, Outbound } from './outbound-gate.ts'
import type { BackendHost } from './loader.ts'
import { backendHost, runMethod } from './run.ts'
import { openUpdate, ReadState } from './state.ts'

/** The sealed connections as stored: one whole set per version, by name. */
type SealedConnections = Record<string, SealedKey>

/** A loopback entrypoint of this worker, made with `props` (ctx.exports). */
type Loopback = (options: { props: GateProps }) => Fetcher

/** The backend object's tables: the embedded ledger's. */
export const TABLES = tables([LEDGER_TABLES])

export class AppBackendObject extends DurableObject<Env> {
  private readonly ledger: Ledger
  /** The outbound grants, folded over their topic. */
  private readonly grants: TopicFold<Map<string, Grant>>
  /** Input and output validators of the installed version, rebuilt when the version changes. */
  private validators: { hash: string; byMethod: Map<string, { input: SchemaValidator; output: SchemaValidator }> } | undefined
  private updates: Promise<unknown> = Promise.resolve()
  /** Where this installation's backend code runs (run.ts), kept so a local sandbox session is reused. */
  private host: BackendHost | undefined
  /** The installed version (undefined until first read); only this object writes it, so it stays true. */
  private version: InstalledVersion | null | undefined

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.grants = new TopicFold(this.ledger, GRANTS_TOPIC, foldGrants, () => new Map())
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  /**
   * Installs a first version (`app.installed`) or a new one (`app.upgraded`); `APP_ALREADY_INSTALLED`
   * (409) when `upgrade` does not match whether a version is installed, `SAME_VERSION` (409) for the same package.
   *
   * @example
   * await stub.install(version, { upgrade: false })
   */
  install(version: InstalledVersion, options: { upgrade: boolean }): { from: string | null } {
    const current = this.current()
    if (!options.upgrade && current) throw new NeuronError('APP_ALREADY_INSTALLED', `${version.app} is installed (version ${current.version}); upgrade it instead`, { status: 409, details: { version: current.version, hash: current.hash } })
    if (options.upgrade && !current) throw notInstalled()
    if (current?.hash === version.hash) throw new NeuronError('SAME_VERSION', `this package (${version.version}) is the installed version`, { status: 409, details: { hash: version.hash } })
    this.ledger.append({ topic: INSTALL_TOPIC, type: current ? 'app.upgraded' : 'app.installed', author: version.person, payload: version as unknown as Json })
    this.version = version
    return { from: current?.version ?? null }
  }

  /** Uninstalls: calls are refused from now on; the history (and so the state) stays in the ledger. */
  uninstall(person: string): Omit<InstalledVersion, 'module'> {
    const current = this.mustBeInstalled()
    this.ledger.append({ topic: INSTALL_TOPIC, type: 'app.uninstalled', author: person, payload: { app: current.app, version: current.version, hash: current.hash } })
    this.version = null
    return withoutModule(current)
  }

  /** The installed version without its module source (what `canister.schema` shows), or null. */
  installed(): Omit<InstalledVersion, 'module'> | null {
    const current = this.current()
    return current && withoutModule(current)
  }

  /**
   * Runs `method` of the installed backend on `input`; the output, checked against the interface.
   *
   * @example
   * await stub.call('count', {}) // { output: { count: 3 } }
   */
  async call(method: string, input: unknown, kind?: 'query' | 'update'): Promise<{ output: Json }> {
    const installed = this.mustBeInstalled()
    // Own keys only: `constructor` or `toString` are not methods of an interface.
    const spec = Object.hasOwn(installed.methods, method) ? installed.methods[method] : undefined
    if (!spec || installed.module === null) {
      throw new NeuronError('UNKNOWN_METHOD', `${installed.app} ${installed.version} has no method ${JSON.stringify(method)}`, { status: 404, details: { methods: Object.keys(installed.methods) } })
    }
    if (kind !== undefined && spec.kind !== kind) {
      throw new NeuronError('METHOD_KIND_MISMATCH', `${installed.app}.${method} is ${spec.kind === 'query' ? 'a query' : 'an update'}, not ${kind === 'query' ? 'a query' : 'an update'}`, { status: 409, details: { method, kind: spec.kind } })
    }
    const { input: inputCheck, output: outputCheck } = this.validatorsOf(installed).get(method)!
    assertValid(inputCheck, input, 'INVALID_INPUT', 400, `input of ${method} does not match the installed interface`)
    const timeoutMs = Math.min(spec.timeoutMs ?? BACKEND_LIMITS.wallMs, BACKEND_LIMITS.wallMs)
    const target = { id: loaderId(installed), module: installed.module, label: installed.app, method, input, timeoutMs }
    const run = async (): Promise<{ output: Json }> => {
      const update = spec.kind === 'update' ? openUpdate(this.ledger, installed.person) : undefined
      try {
        const output = await runMethod((this.host ??= backendHost(this.env)), target, update?.state ?? new ReadState(this.ledger), new Outbound(this.outboundGate(installed)))
        try {
          assertJson(output)
        } catch (error) {
          throw new NeuronError('INVALID_OUTPUT', `${installed.app}.${method} answered a value that is not JSON: ${(error as Error).message}`, { status: 502, details: { method } })
        }
        assertValid(outputCheck, output, 'INVALID_OUTPUT', 502, `output of ${method} does not match the installed interface`)
        update?.commit()
        return { output }
      } finally {
        update?.discard() // after a commit there is nothing left to drop; otherwise the update leaves no trace
      }
    }
    if (spec.kind === 'query') return run()
    const turn = this.updates.then(run, run)
    this.updates = turn.catch(() => undefined)
    return turn
  }

  /** Grants the backend outbound access to `origin` (already normalized); granting twice is no change. */
  grant(person: string, origin: string): Grant {
    this.mustBeInstalled()
    // The one outbound rule for URLs from outside the code: no grant names what no fetch may reach.
    checkOutboundUrl(origin, { development: this.env.NEURON_ENV === 'development' })
    const granted = this.granted()
    const existing = granted.get(origin)
    if (existing) return existing
    assertRoomForGrant(granted, origin)
    this.ledger.append({ topic: GRANTS_TOPIC, type: 'app.grant.added', author: person, payload: { origin } })
    return this.granted().get(origin)!
  }

  /** Revokes a grant; revoking what is not granted is no change. */
  revoke(person: string, origin: string): { origin: string; revoked: boolean } {
    if (!this.granted().has(origin)) return { origin, revoked: false }
    this.ledger.append({ topic: GRANTS_TOPIC, type: 'app.grant.revoked', author: person, payload: { origin } })
    return { origin, revoked: true }
  }

  /** The granted origins. */
  listGrants(): Grant[] {
    return [...this.granted().values()]
  }

  /** Whether the installed backend may reach `origin` now (asked by the outbound gate on every request). */
  allows(origin: string): boolean {
    return this.current() !== null && this.granted().has(origin)
  }

  /** Seals and stores a connection's secret (a new version of the sealed set). */
  async setConnection(person: string, name: string, secret: string): Promise<ConnectionInfo> {
    const { app } = this.mustBeInstalled()
    const sealed = await sealKey(this.env.CREDENTIALS_SECRET, person, connectionBinding(app, name), secret)
    // Read after the await: a concurrent change is kept, not overwritten.
    this.ledger.append({ topic: CONNECTIONS_TOPIC, type: 'app.connections', author: person, payload: { ...this.sealedConnections(), [name]: sealed } as unknown as Json })
    return { name, setAt: sealed.setAt }
  }

  /** Removes a connection (a new version of the set without it). */
  deleteConnection(person: string, name: string): { name: string; deleted: boolean } {
    const { [name]: gone, ...rest } = this.sealedConnections()
    if (!gone) return { name, deleted: false }
    this.ledger.append({ topic: CONNECTIONS_TOPIC, type: 'app.connections', author: person, payload: rest as unknown as Json })
    return { name, deleted: true }
  }

  /** The connections' names and when each was set. */
  connections(): ConnectionInfo[] {
    return Object.entries(this.sealedConnections()).map(([name, { setAt }]) => ({ name, setAt }))
  }

  /** A connection's secret, opened: for the kernel's reveal route only. `CONNECTION_NOT_FOUND` (404) otherwise. */
  async revealConnection(person: string, name: string): Promise<{ name: string; secret: string }> {
    const { app } = this.mustBeInstalled()
    const sealed = this.sealedConnections()[name]
    const secret = sealed ? await openKey(this.env.CREDENTIALS_SECRET, person, connectionBinding(app, name), sealed) : null
    if (secret === null) throw new NeuronError('CONNECTION_NOT_FOUND', `${app} has no connection ${JSON.stringify(name)}`, { status: 404 })
    return { name, secret }
  }

  /** The installed version with its module, read from the ledger once per wake. */
  private current(): InstalledVersion | null {
    if (this.version === undefined) {
      const latest = this.ledger.latest(INSTALL_TOPIC)
      this.version = !latest || latest.type === 'app.uninstalled' ? null : (latest.payload as unknown as InstalledVersion)
    }
    return this.version
  }

  private mustBeInstalled(): InstalledVersion {
    const installed = this.current()
    if (!installed) throw notInstalled()
    return installed
  }

  private granted(): Map<string, Grant> {
    return this.grants.current()
  }

  private sealedConnections(): SealedConnections {
    return (this.ledger.latest(CONNECTIONS_TOPIC)?.payload ?? {}) as unknown as SealedConnections
  }

  private validatorsOf(installed: InstalledVersion): Map<string, { input: SchemaValidator; output: SchemaValidator }> {
    if (this.validators?.hash !== installed.hash) {
      const byMethod = new Map(Object.entries(installed.methods).map(([name, spec]) => [name, { input: new SchemaValidator(spec.input), output: new SchemaValidator(spec.output) }]))
      this.validators = { hash: installed.hash, byMethod }
    }
    return this.validators.byMethod
  }

  /** The kernel's outbound gate for this installation: the isolate's only way to the network. */
  private outboundGate(installed: InstalledVersion): Fetcher {
    const exports = this.ctx.exports as unknown as { OutboundGate: Loopback }
    return exports.OutboundGate({ props: { person: installed.person, app: installed.app } })
  }
}

/** One isolate per installation and version: two people's installations of an app never share an isolate's globals. */
function loaderId(installed: InstalledVersion): string {
  return `app-${sha256Hex(installationName(installed.person, installed.app)).slice(0, 32)}-${installed.hash.slice(0, 32)}`
}

function withoutModule({ module: _module, ...rest }: InstalledVersion): Omit<InstalledVersion, 'module'> {
  return rest
}

function notInstalled(): NeuronError {
  return new NeuronError('APP_NOT_INSTALLED', 'the caller has not installed this app', { status: 404 })
}

// Expected failures of the RPC surface are answers, not uncaught errors (objects/core/rpc.ts).
answerFailures(AppBackendObject, ['install', 'uninstall', 'installed', 'call', 'grant', 'revoke', 'listGrants', 'allows', 'setConnection', 'deleteConnection', 'connections', 'revealConnection'])
