/**
 * The kernel: installs apps, mounts their frames, and wires the handshake,
 * endpoints, broker, grants and audit together. It is the only authority on
 * the trusted page; the UI (ui/) draws what it exposes and feeds back the
 * person's decisions.
 *
 * @example
 * const kernel = new Kernel({ backgrounds: document.querySelector('#backgrounds')!, openTile: (app, params) => ui.openTile(app, params) })
 * kernel.install(notesManifest)
 * const tile = kernel.mount({ app: 'notes', kind: 'tile', tileId: 't1', parent })
 */
import { createAgentActions } from './agent/agent-actions.ts'
import { createCanisterActions } from './canister/actions.ts'
import { BackendConsent } from './canister/consent.ts'
import type { ServerPort } from './canister/server.ts'
import { createCanisterTools } from './canister/tools.ts'
import { AgentCalls } from './agent/agent-calls.ts'
import { AgentMode } from './agent/agent-mode.ts'
import { AuditRing } from './bus/audit.ts'
import { Backlog, queueProbe } from './bus/backlog.ts'
import { Broker } from './bus/broker.ts'
import { Calls } from './bus/calls.ts'
import { Endpoint, Endpoints } from './bus/endpoints.ts'
import { FrameHost, type FrameRecord } from './bus/frames.ts'
import { Grants } from './consent/grants.ts'
import { type Invocation, Invocations } from './agent/invocations.ts'
import { WorkBudget } from './bus/work-budget.ts'
import { Delegations } from './agent/delegations.ts'
import { type BackgroundIdentity, backgroundIdentity, sameIdentity } from './installs/identity.ts'
import { type Installer, installOfferTool } from './installs/install-offer.ts'
import { InstallOffers } from './installs/install-offers.ts'
import { createKernelTools } from './bus/kernel-tools.ts'
import { type AppManifest, parseManifest } from './installs/manifest.ts'
import { createPageActions } from './consent/page-actions.ts'
import { DialogGate } from './consent/dialog-gate.ts'
import { type Gestures, createGestures } from './consent/gesture.ts'
import { createPrivateActions } from './consent/private-actions.ts'
import { createProvenance } from './agent/provenance.ts'
import { type BusErrorShape, fail } from '../protocol/codes.ts'
import { type EndpointKind, parseEndpointId } from '../protocol/endpoint-id.ts'
import { LIMITS } from '../protocol/limits.ts'

export interface KernelHost {
  /** Where hidden background frames live. */
  backgrounds: HTMLElement
  /** workspace.open_tile: the single app-navigation path, drawn by the UI. */
  openTile(app: string, params: Record<string, string>): { endpoint: string } | BusErrorShape
  /** tray.dismiss: close this tray popover (the UI owns the popover around the frame). */
  closeTray?(frame: FrameRecord): void
  /** apps.install_offer: the signed-in person's installs (undefined while signed out). */
  installer?(): Installer | undefined
  /** App backends: the signed-in person's apps client (undefined while signed out). */
  server?: ServerPort
}

export class KernelError extends Error {
  constructor(
    readonly code: 'RESIDENT_LIMIT' | 'ALREADY_INSTALLED' | 'NOT_INSTALLED' | 'NO_ENTRY',
    message: string,
  ) {
    super(message)
  }
}

export class Kernel {
  readonly audit = new AuditRing()
  readonly grants = new Grants()
  readonly endpoints = new Endpoints()
  readonly work = new WorkBudget()
  readonly calls = new Calls(this.audit, (ep) => this.#strike(ep))
  readonly delegations = new Delegations()
  readonly provenance = createProvenance({ calls: this.calls, delegations: this.delegations })
  /** Agent Mode: what the owner enabled, the consent dialog, and the capabilities of calls made for the agent. */
  readonly agentMode = new AgentMode()
  /** App backends: the one consent dialog for a call on the person's behalf or an outbound grant. */
  readonly backendConsent = new BackendConsent()
  readonly invocations = new Invocations((call, outcome, notify) => this.calls.finish(call, outcome, notify))
  /** The one install-offer dialog (apps.install_offer). */
  readonly installOffers = new InstallOffers()
  /** The agent as a caller (the bridge to a session's model calls through here). */
  readonly agent: AgentCalls
  readonly frames: FrameHost
  readonly broker: Broker
  /** Whose gesture the page's activation is (gesture.ts): every person-facing effect asks it. */
  readonly gestures: Gestures
  /** Who may put a dialog in front of the person now (dialog-gate.ts). */
  readonly dialogs: DialogGate
  readonly backlog = new Backlog<Endpoint>(queueProbe())
  #apps = new Map<string, { manifest: AppManifest; frames: Set<FrameRecord>; identity: BackgroundIdentity | null }>()
  /** Whose installation this is: the local browser until the shell signs a person in. */
  #scope = 'local'
  /** Tray badges set by apps' backgrounds (tray.set_state), drawn by the UI. */
  readonly trayBadges = new Map<string, number>()
  #listeners = new Set<() => void>()
  #badgeListeners = new Set<() => void>()

  constructor(private readonly host: KernelHost) {
    const gestures = (this.gestures = createGestures({ frameOf: (ep) => this.frameOf(ep), frameOfElement: (element) => this.frames.recordOf(element), frames: () => this.frames.all() }))
    const gate = (this.dialogs = new DialogGate(gestures))
    const backends = { server: host.server ?? (() => undefined), manifest: (app: string) => this.manifest(app) }
    this.broker = new Broker({
      audit: this.audit,
      work: this.work,
      calls: this.calls,
      invocations: this.invocations,
      endpoints: this.endpoints,
      grants: this.grants,
      kernelTools: new Map([
        ...createKernelTools({ apps: () => this.apps(), endpoints: this.endpoints, grants: this.grants, audit: this.audit, gate, openTile: host.openTile }),
        ['attachments.delegate', this.provenance.tool],
        ['apps.install_offer', installOfferTool({ offers: this.installOffers, gestures, gate, installer: () => host.installer?.() })],
        ...createCanisterTools({ ...backends, consent: this.backendConsent, gate }),
      ]),
      privateActions: new Map([
        ...createPrivateActions({ endpoints: this.endpoints, manifest: (app) => this.manifest(app) }),
        ...createPageActions({ endpoints: this.endpoints, manifest: (app) => this.manifest(app), frameOf: (ep) => this.frameOf(ep), setBadge: (app, badge) => this.#setBadge(app, badge), closeTray: (frame) => host.closeTray?.(frame), gestures }),
        ...createAgentActions({ agentMode: this.agentMode, manifest: (app) => this.manifest(app), gestures, gate }),
        ...createCanisterActions({ ...backends, endpoints: this.endpoints, gestures }),
      ]),
      bye: (ep) => this.frames.documentGone(ep),
      strike: (ep) => this.#strike(ep),
      backlog: this.backlog,
      flood: (ep, reason) => this.#flood(ep, reason),
      connecting: (id) => this.#connecting(id),
      declares: (app, tool) => this.manifest(app)?.tools.includes(tool) === true,
      attribute: (ep, delegation) => this.provenance.attribute(ep, delegation),
    })
    this.frames = new FrameHost({
      audit: this.audit,
      create: (record, port, id) => {
        const ep = new Endpoint(id, record.spec.app, record.spec.kind, port)
        this.broker.attach(ep)
        return ep
      },
      activate: (ep) => void this.endpoints.add(ep),
      unbind: (ep, reason) => this.endpoints.remove(ep, reason),
    })
    this.agent = new AgentCalls({ agentMode: this.agentMode, calls: this.calls, invocations: this.invocations, endpoints: this.endpoints, manifest: (app) => this.manifest(app) })
    this.endpoints.onGone((ep) => {
      this.backlog.forget(ep)
      this.calls.endpointGone(ep)
      this.grants.endpointGone(ep.id)
      this.delegations.sessionEnded(ep.session)
      this.agentMode.endpointGone(ep.id)
      this.installOffers.endpointGone(ep.id)
      this.backendConsent.endpointGone(ep.id)
    })
    // Consent ends (owner, app, app change, sign-out): every call made under it ends with it.
    this.agentMode.onRevoked((ended, reason) => {
      const error = fail('AGENT_MODE_REVOKED', `Agent Mode ended (${reason})`)
      this.invocations.endRoots((root) => ended.some((e) => e.app === root.app && e.entrypoint === root.entrypoint), error)
    })
    // A nested call into another app lives only as long as the session grant it crossed on.
    this.grants.onChange(() => {
      const crossed = (inv: Invocation) => !!inv.parent && inv.parent.endpoint.app !== inv.endpoint.app
      this.invocations.end((inv) => crossed(inv) && !this.grants.view(inv.parent!.endpoint.id, inv.parent!.endpoint.app, inv.endpoint.app).session, fail('GRANT_REQUIRED', 'the grant this call was made under was revoked'))
    })
    this.calls.onEnd((call) => this.delegations.parentEnded(call))
  }

  apps(): AppManifest[] {
    return [...this.#apps.values()].map((a) => a.manifest)
  }

  manifest(app: string): AppManifest | undefined {
    return this.#apps.get(app)?.manifest
  }

  /** Installs an app and starts its resident background (at most 32 resident). */
  install(input: unknown): AppManifest {
    const manifest = parseManifest(input)
    if (this.#apps.has(manifest.id)) throw new KernelError('ALREADY_INSTALLED', `${manifest.id} is installed`)
    const resident = this.apps().filter((a) => a.entries.background).length
    if (manifest.entries.background && resident >= LIMITS.maxResidentBackgrounds) {
      throw new KernelError('RESIDENT_LIMIT', `at most ${LIMITS.maxResidentBackgrounds} resident background frames`)
    }
    this.#apps.set(manifest.id, { manifest, frames: new Set(), identity: backgroundIdentity(manifest, { scope: this.#scope }) })
    if (manifest.entries.background) this.mount({ app: manifest.id, kind: 'background', parent: this.host.backgrounds })
    this.#changed()
    return manifest
  }

  /**
   * Replaces an installed app's manifest (an upgrade, or a reinstall of another build). When the
   * background's identity or what the app declares changes, every frame of the app reloads from
   * its (possibly new) entry path: its endpoints end (calls in flight fail with ENDPOINT_GONE,
   * delegation tokens die with their sessions), grants from and to the app are dropped, and the
   * new build starts afresh. A manifest that changes only metadata (title, description) just
   * replaces it.
   *
   * @example
   * kernel.upgrade({ ...notes, version: '1.1.0' }) // the Notes frames reload as 1.1.0
   */
  upgrade(input: unknown): AppManifest {
    const manifest = parseManifest(input)
    const installed = this.#apps.get(manifest.id)
    if (!installed) throw new KernelError('NOT_INSTALLED', `${manifest.id} is not installed`)
    const old = installed.manifest
    if (!old.entries.background && manifest.entries.background && this.apps().filter((a) => a.entries.background).length >= LIMITS.maxResidentBackgrounds) {
      throw new KernelError('RESIDENT_LIMIT', `at most ${LIMITS.maxResidentBackgrounds} resident background frames`)
    }
    const identity = backgroundIdentity(manifest, { scope: this.#scope })
    const declared = (m: AppManifest) => JSON.stringify([m.version, m.entries, m.tools, m.permissions])
    installed.manifest = manifest
    if (sameIdentity(installed.identity, identity) && declared(old) === declared(manifest)) {
      this.#changed()
      return manifest
    }
    installed.identity = identity
    // Consent named one exact version: a new build must be enabled again.
    this.agentMode.appChanged(manifest.id)
    this.#restart(manifest.id)
    return manifest
  }

  /**
   * An authority change: the installation now belongs to `scope` (a person signing in or out).
   * Every background's identity changes with it, so every app restarts and every grant goes.
   */
  setScope(scope: string): void {
    if (scope === this.#scope) return
    this.#scope = scope
    for (const [app, installed] of this.#apps) {
      installed.identity = backgroundIdentity(installed.manifest, { scope })
      this.agentMode.appChanged(app)
      this.dialogs.forget(app) // a new owner has dismissed nothing yet
      this.#restart(app)
    }
  }

  /** The identity the app's background runs as now (null: no background). */
  identity(app: string): BackgroundIdentity | null {
    return this.#apps.get(app)?.identity ?? null
  }

  /** Removes an app: its frames close, its endpoints and grants go. */
  uninstall(app: string): void {
    const installed = this.#apps.get(app)
    if (!installed) throw new KernelError('NOT_INSTALLED', `${app} is not installed`)
    this.agentMode.appChanged(app)
    this.dialogs.forget(app)
    for (const frame of installed.frames) this.frames.unmount(frame)
    this.#apps.delete(app)
    this.trayBadges.delete(app)
    this.grants.appGone(app)
    this.#changed()
  }

  /** Creates one of an app's frames. Query params are UI context only. */
  mount(spec: { app: string; kind: EndpointKind; tileId?: string; parent: HTMLElement; params?: Record<string, string> }): FrameRecord {
    const installed = this.#apps.get(spec.app)
    if (!installed) throw new KernelError('NOT_INSTALLED', `${spec.app} is not installed`)
    const path = installed.manifest.entries[spec.kind]
    if (!path) throw new KernelError('NO_ENTRY', `${spec.app} has no ${spec.kind}`)
    const query = new URLSearchParams(spec.params ?? {}).toString()
    const frame = this.frames.mount({
      app: spec.app,
      kind: spec.kind,
      tileId: spec.tileId,
      url: query ? `${path}?${query}` : path,
      parent: spec.parent,
      title: `${installed.manifest.title} (${spec.kind})`,
    })
    installed.frames.add(frame)
    return frame
  }

  unmount(frame: FrameRecord): void {
    this.frames.unmount(frame)
    this.#apps.get(frame.spec.app)?.frames.delete(frame)
  }

  reload(frame: FrameRecord): void {
    this.frames.reload(frame)
  }

  /**
   * Every kernel tool and private action, and whether it needs the owner (a dialog, a tile or an
   * effect in front of the person): a call made for the agent never reaches one that does.
   */
  ownerTable(): { kernelTools: Record<string, boolean>; privateActions: Record<string, boolean> } {
    return this.broker.ownerTable()
  }

  /** Listens for tray badge changes only (cheap: no full re-render of the shell per badge). */
  onBadge(listener: () => void): () => void {
    this.#badgeListeners.add(listener)
    return () => this.#badgeListeners.delete(listener)
  }

  /** The frame `ep` is bound to, if it is still bound. */
  frameOf(ep: Endpoint): FrameRecord | undefined {
    return [...(this.#apps.get(ep.app)?.frames ?? [])].find((f) => f.endpoint === ep)
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * One more message of `ep` dropped or refused unread. Past the strike rate the endpoint is
   * flooding: it is disconnected (closing its port discards whatever it still has queued) and
   * stays so until its frame loads a new document.
   */
  #strike(ep: Endpoint) {
    if (!ep.live || ep.strikes.take()) return
    this.#flood(ep, `more than ${LIMITS.maxStrikesPerSecond} messages dropped or refused unread in a second`)
  }

  /**
   * `ep` is flooding the page: it is disconnected (closing its port discards whatever it still has
   * queued), and its frame is bound again only after a back-off that doubles with each flood.
   */
  #flood(ep: Endpoint, reason: string) {
    if (!ep.live) return
    this.audit.record({ caller: ep.id, callerApp: ep.app, target: 'kernel', tool: 'port.message', status: 'error', code: 'FLOODED', durationMs: 0, args: `${reason}; disconnected`.slice(0, LIMITS.auditSummaryChars) })
    const frame = this.frameOf(ep)
    if (frame) this.frames.holdOff(frame)
    this.frames.documentGone(ep)
  }

  /** `id` is the background of an installed app whose frame is mounted but not (yet, or again) connected. */
  #connecting(id: string): boolean {
    const address = parseEndpointId(id)
    const installed = address?.kind === 'background' ? this.#apps.get(address.app) : undefined
    return !!installed && [...installed.frames].some((f) => f.spec.kind === 'background' && f.state !== 'closed' && !f.endpoint)
  }

  /** Reloads every frame of `app` as its current manifest says, ending everything bound to the old build. */
  #restart(app: string) {
    const installed = this.#apps.get(app)!
    const { entries } = installed.manifest
    this.grants.appGone(app)
    this.trayBadges.delete(app)
    for (const frame of [...installed.frames]) {
      const path = entries[frame.spec.kind]
      if (!path) {
        this.unmount(frame)
        continue
      }
      const query = frame.spec.url.includes('?') ? frame.spec.url.slice(frame.spec.url.indexOf('?')) : ''
      this.frames.reload(frame, path + query)
    }
    if (entries.background && ![...installed.frames].some((f) => f.spec.kind === 'background')) this.mount({ app, kind: 'background', parent: this.host.backgrounds })
    this.#changed()
  }

  #setBadge(app: string, badge: number | null) {
    if (badge === null) this.trayBadges.delete(app)
    else this.trayBadges.set(app, badge)
    for (const listener of this.#badgeListeners) listener()
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
