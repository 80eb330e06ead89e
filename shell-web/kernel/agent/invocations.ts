/**
 * Invocation capabilities: every routed call made for the agent — the root
 * call the agent makes, and each nested call a handler makes through its
 * `context.kernel` — gets a fresh, opaque capability bound to the exact
 * endpoint session that runs it. The kernel sends it beside the `tool.invoke`
 * (private transport metadata, never in arguments, schemas, progress, results
 * or discovery), and accepts it back only from that same session.
 *
 * A capability dies with its call: on return, error, timeout, cancel or either
 * endpoint going away (disconnect, reload: a new session), and when the root's
 * grant ends (Agent Mode disabled, the app changed, sign-out), and for a
 * nested call into another app when the session grant it crossed on is
 * revoked. When one dies,
 * every descendant call ends too, so its handler's `context.signal` aborts.
 *
 * @example
 * const inv = invocations.mint(call, target, { parent })  // call.capability is now set
 * invocations.resolve(ep, msg.invocation)                  // the live invocation, or undefined
 * invocations.endRoots((root) => root.app === 'notes', fail('AGENT_MODE_REVOKED', '…'))
 * invocations.end((inv) => inv.endpoint.app === 'notes', fail('GRANT_REQUIRED', '…'))
 */
import type { Call, Outcome } from '../bus/calls.ts'
import type { Endpoint } from '../bus/endpoints.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** What the agent's root call was made under: one exact app version and entrypoint. */
export interface RootInfo {
  id: string
  app: string
  version: string
  entrypoint: string
}

export interface Invocation {
  capability: string
  root: RootInfo
  /** The exact endpoint session running the call; nothing else may present the capability. */
  endpoint: Endpoint
  call: Call
  parent?: Invocation
  children: Set<Invocation>
}

export class Invocations {
  #byCapability = new Map<string, Invocation>()
  #activeByApp = new Map<string, number>()
  #nextRoot = 1

  constructor(
    /** Ends a call (Calls.finish), telling its target why. */
    private readonly finish: (call: Call, outcome: Outcome, notifyTarget?: string) => void,
  ) {}

  /** A new root id for the agent's next call. */
  rootId(): string {
    return `root-${this.#nextRoot++}`
  }

  /**
   * Binds a fresh capability to `call`, about to be forwarded to `target`: under `parent` for a
   * nested call, or as the root of `root`. Returns a refusal when the parent already ended or the
   * shell holds too many.
   */
  mint(call: Call, target: Endpoint, from: { parent: Invocation } | { root: RootInfo }): Invocation | BusErrorShape {
    const parent = 'parent' in from ? from.parent : undefined
    if (parent && this.#byCapability.get(parent.capability) !== parent) return fail('INVOCATION_INVALID', 'the invocation this call was made under has ended')
    if (this.#byCapability.size >= LIMITS.maxInvocations) return fail('LIMIT_REACHED', `at most ${LIMITS.maxInvocations} calls for the agent at once`)
    const invocation: Invocation = { capability: capability(), root: parent ? parent.root : (from as { root: RootInfo }).root, endpoint: target, call, parent, children: new Set() }
    this.#byCapability.set(invocation.capability, invocation)
    this.#activeByApp.set(target.app, (this.#activeByApp.get(target.app) ?? 0) + 1)
    parent?.children.add(invocation)
    call.capability = invocation.capability
    call.root = invocation.root.id
    call.ended = () => this.#ended(invocation)
    return invocation
  }

  /** The live invocation `capability` names, if `ep` (this exact session) holds it. */
  resolve(ep: Endpoint, capability: unknown): Invocation | undefined {
    const invocation = typeof capability === 'string' ? this.#byCapability.get(capability) : undefined
    return invocation && invocation.endpoint === ep && ep.live ? invocation : undefined
  }

  /** Is some endpoint of `app` running a call for the agent right now? */
  activeFor(app: string): boolean {
    return (this.#activeByApp.get(app) ?? 0) > 0
  }

  /** Ends every root call whose root matches (Agent Mode revoked, sign-out), with `error`. */
  endRoots(match: (root: RootInfo) => boolean, error: BusErrorShape): void {
    this.end((invocation) => !invocation.parent && match(invocation.root), error)
  }

  /** Ends every call whose invocation matches (and, with each, its descendants), with `error`. */
  end(match: (invocation: Invocation) => boolean, error: BusErrorShape): void {
    for (const invocation of [...this.#byCapability.values()]) {
      if (this.#byCapability.has(invocation.capability) && match(invocation)) this.finish(invocation.call, { error }, error.code)
    }
  }

  /** Live capabilities (for tests and the UI). */
  get size(): number {
    return this.#byCapability.size
  }

  #ended(invocation: Invocation) {
    if (this.#byCapability.get(invocation.capability) !== invocation) return
    this.#byCapability.delete(invocation.capability)
    const left = (this.#activeByApp.get(invocation.endpoint.app) ?? 1) - 1
    if (left > 0) this.#activeByApp.set(invocation.endpoint.app, left)
    else this.#activeByApp.delete(invocation.endpoint.app)
    invocation.parent?.children.delete(invocation)
    // Descendants cannot outlive their parent: their calls end and their handlers are told to stop.
    for (const child of [...invocation.children]) this.finish(child.call, { error: fail('CANCELLED', 'the invocation this call was made under ended') }, 'CANCELLED')
  }
}

/** 128 random bits, hex: unguessable, meaningless outside this page. */
function capability(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}
