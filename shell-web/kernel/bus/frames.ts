/**
 * The handshake: the kernel creates every app iframe, remembers its
 * contentWindow, and binds a private MessagePort to it.
 *
 *   load event → kernel posts { neutron: 'probe', nonce } (retried until answered)
 *   frame      → posts { neutron: 'ready', nonce } back (exactly once per document)
 *   kernel     → posts { neutron: 'connect', endpoint, … } transferring the port
 *
 * A window message is accepted only when its `source` is a window this kernel
 * created, its origin is opaque, and it answers a probe of the current
 * document. Everything else — other windows, anything but `ready`, a second
 * handshake, forged nonces — is ignored and audited. A new document (the
 * frame's `load` event, or its SDK's `bye` on pagehide) ends the old binding.
 *
 * @example
 * const frame = frames.mount({ app: 'notes', kind: 'tile', tileId: 't1', url: '/apps/notes/tile', parent, title: 'Notes' })
 * frames.reload(frame)
 * frames.unmount(frame)
 */
import type { AuditRing } from './audit.ts'
import type { Endpoint } from './endpoints.ts'
import { type EndpointKind, endpointId } from '../../protocol/endpoint-id.ts'
import { isRecord } from '../../protocol/envelope.ts'

export interface FrameSpec {
  app: string
  kind: EndpointKind
  tileId?: string
  /** Same-origin path plus UI-context query; never identity. */
  url: string
  parent: HTMLElement
  title: string
}

export interface FrameRecord {
  readonly spec: FrameSpec
  readonly iframe: HTMLIFrameElement
  readonly window: Window
  state: 'probing' | 'bound' | 'closed'
  /** Probes of the current document not yet answered. */
  nonces: Set<string>
  /** Probes of the current document, spent by its one handshake. */
  spent: Set<string>
  /** Probes sent to earlier documents (a late answer from one is harmless). */
  oldNonces: Set<string>
  /** Instance id the next binding will use (known ahead so open_tile can return it). */
  nextInstanceId?: string
  endpoint?: Endpoint
  timers: ReturnType<typeof setTimeout>[]
  /** Floods its documents made (FLOODED) lately, and when the next document may bind (see holdOff). */
  floods: { count: number; at: number; until: number }
}

const SANDBOX: Record<EndpointKind, string> = {
  background: 'allow-scripts',
  tile: 'allow-scripts allow-forms',
  tray: 'allow-scripts allow-forms',
}
const PROBE_RETRIES_MS = [50, 200, 500, 1_000, 2_000, 4_000, 8_000]
/** A frame that flooded is bound again after 1 s, doubling per flood up to a minute; a quiet 5 minutes forgets them. */
const FLOOD_HOLD_OFF_MS = { first: 1_000, max: 60_000, forgetAfter: 300_000 }

export interface FrameDeps {
  audit: AuditRing
  /** Makes the endpoint for a new binding (not yet live). */
  create(record: FrameRecord, port: MessagePort, id: string): Endpoint
  /** Makes it live, once the frame record points at it. */
  activate(endpoint: Endpoint): void
  unbind(endpoint: Endpoint, reason: string): void
}

export class FrameHost {
  #byWindow = new Map<Window, FrameRecord>()
  #byIframe = new WeakMap<Element, FrameRecord>()
  /** Windows nested in an app's frame, and that frame (so a flood of their messages costs one walk). */
  #nested = new WeakMap<object, FrameRecord | null>()

  constructor(private readonly deps: FrameDeps) {
    window.addEventListener('message', this.#onMessage)
  }

  mount(spec: FrameSpec): FrameRecord {
    const iframe = document.createElement('iframe')
    iframe.setAttribute('sandbox', SANDBOX[spec.kind])
    // Where the browser supports it, the frame cannot take focus by itself (only after the person's gesture in it).
    iframe.setAttribute('allow', "focus-without-user-activation 'none'")
    iframe.title = spec.title
    iframe.dataset.app = spec.app
    iframe.dataset.kind = spec.kind
    if (spec.kind === 'background') {
      iframe.hidden = true
      iframe.inert = true
      iframe.tabIndex = -1
      iframe.setAttribute('aria-hidden', 'true')
    }
    iframe.src = new URL(spec.url, location.origin).href
    spec.parent.append(iframe)
    const record: FrameRecord = {
      spec,
      iframe,
      window: iframe.contentWindow!,
      state: 'probing',
      nonces: new Set(),
      spent: new Set(),
      oldNonces: new Set(),
      nextInstanceId: spec.kind === 'background' ? undefined : randomId(4),
      timers: [],
      floods: { count: 0, at: -Infinity, until: 0 },
    }
    this.#byWindow.set(record.window, record)
    this.#byIframe.set(iframe, record)
    iframe.addEventListener('load', () => this.#onLoad(record))
    return record
  }

  /** The endpoint id the frame's next binding will get. */
  expectedId(record: FrameRecord): string {
    const { app, kind, tileId } = record.spec
    return endpointId({ app, kind, tileId, instanceId: record.nextInstanceId })
  }

  /** Ends the frame's binding and loads its document again — at `url` when its entry moved (an upgrade). */
  reload(record: FrameRecord, url: string = record.spec.url): void {
    if (record.state === 'closed') return
    this.#unbind(record, 'reload')
    record.nextInstanceId = record.spec.kind === 'background' ? undefined : randomId(4)
    record.spec.url = url
    record.iframe.src = new URL(url, location.origin).href
  }

  unmount(record: FrameRecord): void {
    if (record.state === 'closed') return
    this.#unbind(record, 'closed')
    record.state = 'closed'
    record.iframe.remove()
    this.#byWindow.delete(record.window)
  }

  /** Every frame the kernel has mounted and not yet closed. */
  all(): Iterable<FrameRecord> {
    return this.#byWindow.values()
  }

  /** The frame record of one of the kernel's iframe elements. */
  recordOf(element: Element): FrameRecord | undefined {
    return this.#byIframe.get(element)
  }

  /**
   * The frame's document flooded the page: its next document is bound only after a back-off
   * (probes wait for it), so a frame reloading itself to flood again costs the page one message per
   * back-off, not one per reload.
   */
  holdOff(record: FrameRecord): void {
    const now = performance.now()
    const floods = record.floods
    floods.count = now - floods.at > FLOOD_HOLD_OFF_MS.forgetAfter ? 1 : floods.count + 1
    floods.at = now
    floods.until = now + Math.min(FLOOD_HOLD_OFF_MS.first * 2 ** (floods.count - 1), FLOOD_HOLD_OFF_MS.max)
  }

  /** Called by the broker when a frame's SDK says its document is going away. */
  documentGone(endpoint: Endpoint): void {
    for (const record of this.#byWindow.values()) if (record.endpoint === endpoint) this.#unbind(record, 'unload')
  }

  dispose(): void {
    window.removeEventListener('message', this.#onMessage)
    for (const record of [...this.#byWindow.values()]) this.unmount(record)
  }

  #onLoad(record: FrameRecord) {
    if (record.state === 'closed') return
    this.#unbind(record, 'reload')
    for (const nonce of [...record.nonces, ...record.spent]) record.oldNonces.add(nonce)
    if (record.oldNonces.size > 64) record.oldNonces = new Set([...record.oldNonces].slice(-32))
    record.nonces = new Set()
    record.spent = new Set()
    record.state = 'probing'
    const wait = Math.max(0, record.floods.until - performance.now())
    const probe = () => record.state === 'probing' && this.#probe(record)
    if (wait) record.timers.push(setTimeout(probe, wait))
    else this.#probe(record)
    for (const delay of PROBE_RETRIES_MS) record.timers.push(setTimeout(probe, wait + delay))
  }

  #probe(record: FrameRecord) {
    const nonce = randomId(16)
    record.nonces.add(nonce)
    record.window.postMessage({ neutron: 'probe', nonce }, '*')
  }

  #unbind(record: FrameRecord, reason: string) {
    for (const timer of record.timers) clearTimeout(timer)
    record.timers = []
    const endpoint = record.endpoint
    if (!endpoint) return
    record.endpoint = undefined
    delete record.iframe.dataset.endpoint
    if (record.state === 'bound') record.state = 'probing'
    if (!record.nextInstanceId && record.spec.kind !== 'background') record.nextInstanceId = randomId(4)
    this.deps.unbind(endpoint, reason)
  }

  #onMessage = (event: MessageEvent) => {
    const record = event.source ? this.#byWindow.get(event.source as Window) : undefined
    for (const port of event.ports) port.close()
    const data: unknown = event.data
    if (!record) {
      // A frame an app nests inside its own frame is charged to that app (its audit share), so
      // its messages cannot push other apps' entries out of the ring.
      const host = this.#hostOf(event.source)
      const caller = host ? `${host.endpoint?.id ?? `frame:${host.spec.app}:${host.spec.kind}`}>nested` : 'window:unregistered'
      return this.#audit(caller, host?.spec.app ?? null, 'UNKNOWN_SOURCE', describe(data))
    }
    const who = record.endpoint?.id ?? `frame:${record.spec.app}:${record.spec.kind}`
    const isReady = isRecord(data) && data.neutron === 'ready' && typeof data.nonce === 'string' && Object.keys(data).length === 2
    if (!isReady || event.origin !== 'null' || event.ports.length > 0) {
      return this.#audit(who, record.spec.app, 'WINDOW_MESSAGE_IGNORED', describe(data))
    }
    const nonce = data.nonce as string
    if (record.state === 'probing' && record.nonces.has(nonce)) return this.#bind(record, nonce)
    if (record.oldNonces.has(nonce)) return // an earlier document answering late: harmless
    // Only a new document (a load event) gets fresh probes: one handshake per document.
    const code = record.spent.has(nonce) ? 'HANDSHAKE_REPEATED' : 'HANDSHAKE_REJECTED'
    this.#audit(who, record.spec.app, code, 'handshake')
  }

  /** The kernel-created frame that `source` is nested in, if any, however deep (each window is walked once). */
  #hostOf(source: MessageEventSource | null): FrameRecord | undefined {
    if (!source) return undefined
    const known = this.#nested.get(source)
    if (known !== undefined) return known ?? undefined
    const host = this.#walkUp(source as Window)
    this.#nested.set(source, host ?? null)
    return host
  }

  #walkUp(source: Window): FrameRecord | undefined {
    // A chain of parents always ends at the top; windows already placed answer from the cache, so
    // a deep nest costs one walk per new window, however many messages it posts.
    let w: Window | null = source
    try {
      while (w && w !== window) {
        const found = this.#byWindow.get(w) ?? this.#nested.get(w)
        if (found) return found
        if (found === null || w.parent === w) return undefined
        w = w.parent
      }
    } catch {
      // a window we cannot walk up from is simply unattributed
    }
    return undefined
  }

  #bind(record: FrameRecord, nonce: string) {
    for (const timer of record.timers) clearTimeout(timer)
    record.timers = []
    record.spent = record.nonces
    record.nonces = new Set()
    const { app, kind, tileId } = record.spec
    const id = endpointId({ app, kind, tileId, instanceId: record.nextInstanceId ?? randomId(4) })
    record.nextInstanceId = undefined
    const channel = new MessageChannel()
    const endpoint = this.deps.create(record, channel.port1, id)
    record.endpoint = endpoint
    record.state = 'bound'
    record.iframe.dataset.endpoint = id
    this.deps.activate(endpoint)
    record.window.postMessage({ neutron: 'connect', nonce, endpoint: id, app, kind }, '*', [channel.port2])
  }

  #audit(caller: string, callerApp: string | null, code: 'UNKNOWN_SOURCE' | 'WINDOW_MESSAGE_IGNORED' | 'HANDSHAKE_REPEATED' | 'HANDSHAKE_REJECTED', what: string) {
    this.deps.audit.note({ caller, callerApp, target: 'kernel', tool: 'window.message', status: 'ignored', code, durationMs: 0, args: what })
  }
}

function describe(data: unknown): string {
  if (isRecord(data) && typeof data.neutron === 'string') return `neutron:${data.neutron.slice(0, 20)}`
  if (isRecord(data) && typeof data.type === 'string') return `type:${data.type.slice(0, 20)}`
  return typeof data
}

function randomId(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('')
}
