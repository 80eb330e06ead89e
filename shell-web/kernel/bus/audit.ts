/**
 * The audit ring: the last 200 routed calls and security events, in memory.
 * Fairness: one app can hold at most half the ring, so a noisy or hostile app
 * evicts its own entries rather than everyone else's. Denials (refusals,
 * policy denials, security events) outlive ordinary entries: whoever needs
 * room evicts an ordinary entry first, and an app's denials have a lane of
 * their own (at most 60 per app) that only that app's newer denials can push
 * out — so an app cannot erase its own refusal by making harmless calls.
 * When the ring holds nothing but denials, colluding apps drawing hundreds
 * cannot flush anyone else's either: an app at its fair share of the ring
 * (the ring over the apps holding denials) makes room from its own, one below
 * it from the app holding the most (of several, the one that drew one last),
 * and never is an app's oldest or latest denial taken for another app's sake.
 * Repeated security events (a flood of spoofed window messages, late
 * progress…) from one source within a second fold into one entry with a `count`.
 *
 * @example
 * audit.record({ caller, callerApp: 'planner', target: 'app:notes:background', tool: 'notes_search', status: 'ok', durationMs: 3 })
 * audit.forApp('planner') // that app's own entries, oldest first (refused private actions left out)
 */
import type { AuditCode } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

export interface AuditEntry {
  seq: number
  /** Epoch milliseconds of the last occurrence. */
  at: number
  caller: string
  /** Kernel-derived app of the caller; null for windows the kernel does not know. */
  callerApp: string | null
  target: string
  /** Tool name, or the action / transport event for non-call entries. */
  tool: string
  status: 'ok' | 'error' | 'ignored'
  code?: AuditCode
  durationMs: number
  args?: string
  result?: string
  /**
   * A call made by an endpoint while it was answering another one: `delegated` keeps the
   * provenance of `origin` (one-use token), `intermediate` is attributed to the caller alone.
   */
  provenance?: 'delegated' | 'intermediate'
  /** The endpoint whose call a delegated call continues. */
  origin?: string
  /** How many identical events this entry stands for. */
  count: number
  /**
   * A refused private action: shown to the person on the trusted page, never returned to apps
   * (audit.list) — private actions stay out of what an app or a model can read.
   */
  private?: true
  /** Agent Mode: the root invocation this call was made for (every nested call names the same root). */
  root?: string
}

export type AuditInput = Omit<AuditEntry, 'seq' | 'at' | 'count'>

/** Error codes that are ordinary outcomes of a permitted call, not a refusal by the kernel. */
const ORDINARY_ERRORS = new Set<AuditCode>(['TOOL_ERROR', 'TIMEOUT', 'CANCELLED', 'ENDPOINT_GONE'])

/**
 * A refusal, a policy denial or a security event: kept ahead of ordinary entries.
 *
 * @example
 * isDenial({ status: 'error', code: 'GRANT_REQUIRED' }) // true
 * isDenial({ status: 'error', code: 'TOOL_ERROR' })     // false: the call was permitted
 */
export function isDenial(entry: Pick<AuditEntry, 'status' | 'code'>): boolean {
  return entry.status !== 'ok' && entry.code !== undefined && !ORDINARY_ERRORS.has(entry.code)
}

const COALESCE_MS = 1_000

export class AuditRing {
  #entries: AuditEntry[] = []
  #perApp = new Map<string | null, { all: number; denials: number }>()
  #seq = 0
  #recent = new Map<string, AuditEntry>()
  #listeners = new Set<() => void>()

  constructor(
    readonly capacity: number = LIMITS.auditEntries,
    readonly perApp: number = LIMITS.auditEntriesPerApp,
    readonly denialsPerApp: number = LIMITS.auditDenialsPerApp,
    private readonly now: () => number = Date.now,
  ) {}

  /** Appends one entry. */
  record(input: AuditInput): AuditEntry {
    const entry: AuditEntry = { ...input, seq: ++this.#seq, at: this.now(), count: 1 }
    this.#makeRoom(entry)
    this.#entries.push(entry)
    const counts = this.#counts(entry.callerApp)
    counts.all++
    if (isDenial(entry)) counts.denials++
    this.#changed()
    return entry
  }

  /** Appends, or folds into the same source's identical event from the last second. */
  note(input: AuditInput): AuditEntry {
    const key = `${input.caller}|${input.code}|${input.tool}|${input.target}`
    const previous = this.#recent.get(key)
    const at = this.now()
    if (previous && at - previous.at < COALESCE_MS && this.#entries.includes(previous)) {
      previous.count++
      previous.at = at
      this.#changed()
      return previous
    }
    const entry = this.record(input)
    if (this.#recent.size > 256) this.#recent.clear()
    this.#recent.set(key, entry)
    return entry
  }

  /** All entries, oldest first. */
  list(): readonly AuditEntry[] {
    return this.#entries
  }

  /** Entries whose kernel-derived caller belongs to `app`, as that app may read them (no private entries). */
  forApp(app: string): AuditEntry[] {
    return this.#entries.filter((e) => e.callerApp === app && !e.private)
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #counts(app: string | null) {
    let counts = this.#perApp.get(app)
    if (!counts) this.#perApp.set(app, (counts = { all: 0, denials: 0 }))
    return counts
  }

  /**
   * Eviction order: a denial over its app's denial lane evicts that app's oldest denial; an app
   * over its share evicts its own oldest ordinary entry (there is one: the denial lane is smaller
   * than the share); a full ring evicts the oldest ordinary entry of anyone, and only a ring of
   * nothing but denials evicts the oldest denial.
   */
  #makeRoom(entry: AuditEntry) {
    const app = entry.callerApp
    const counts = this.#counts(app)
    const oldest = (match: (e: AuditEntry) => boolean) => this.#entries.findIndex(match)
    if (isDenial(entry) && counts.denials >= this.denialsPerApp) this.#evict(oldest((e) => e.callerApp === app && isDenial(e)))
    else if (counts.all >= this.perApp) this.#evict(oldest((e) => e.callerApp === app && !isDenial(e)))
    if (this.#entries.length < this.capacity) return
    const ordinary = oldest((e) => !isDenial(e))
    this.#evict(ordinary >= 0 ? ordinary : this.#fairestDenial(app))
  }

  /**
   * A ring of nothing but denials: the incoming entry's app gives up its own oldest (but its very
   * oldest) once it holds its fair share; otherwise the app holding the most does (of equals, the
   * one that drew one last), never its oldest or latest denial.
   */
  #fairestDenial(incoming: string | null): number {
    const lanes = new Map<string | null, number[]>()
    this.#entries.forEach((e, i) => {
      if (!isDenial(e)) return
      const lane = lanes.get(e.callerApp)
      if (lane) lane.push(i)
      else lanes.set(e.callerApp, [i])
    })
    const size = (app: string | null) => (lanes.get(app)?.length ?? 0) + (app === incoming ? 1 : 0)
    const last = (app: string | null) => (app === incoming ? Infinity : lanes.get(app)!.at(-1)!)
    const share = this.capacity / (lanes.size + (lanes.has(incoming) ? 0 : 1))
    const own = lanes.get(incoming)
    if (own && own.length > 1 && size(incoming) > share) return own[1]!
    const apps = [...lanes.keys()].sort((a, b) => size(b) - size(a) || last(b) - last(a))
    for (const app of apps) {
      const lane = lanes.get(app)!
      const evictable = app === incoming ? lane.slice(1) : lane.slice(1, -1)
      if (evictable.length) return evictable[0]!
    }
    return 0
  }

  #evict(index: number) {
    if (index < 0) return
    const [evicted] = this.#entries.splice(index, 1)
    const counts = this.#counts(evicted!.callerApp)
    counts.all--
    if (isDenial(evicted!)) counts.denials--
    if (!counts.all) this.#perApp.delete(evicted!.callerApp)
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
