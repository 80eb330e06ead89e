/**
 * The audit ring: the last 200 routed calls and security events, in memory.
 * Fairness: one app can hold at most half the ring, so a noisy or hostile app
 * evicts its own entries rather than everyone else's. Repeated security events
 * (a flood of spoofed window messages, late progress…) from one source within
 * a second fold into one entry with a `count`.
 *
 * @example
 * audit.record({ caller, callerApp: 'planner', target: 'app:notes:background', tool: 'notes_search', status: 'ok', durationMs: 3 })
 * audit.forApp('planner') // that app's own entries, oldest first
 */
import type { AuditCode } from '../protocol/codes.ts'
import { LIMITS } from '../protocol/limits.ts'

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
  /** How many identical events this entry stands for. */
  count: number
}

export type AuditInput = Omit<AuditEntry, 'seq' | 'at' | 'count'>

const COALESCE_MS = 1_000

export class AuditRing {
  #entries: AuditEntry[] = []
  #perApp = new Map<string | null, number>()
  #seq = 0
  #recent = new Map<string, AuditEntry>()
  #listeners = new Set<() => void>()

  constructor(
    readonly capacity: number = LIMITS.auditEntries,
    readonly perApp: number = LIMITS.auditEntriesPerApp,
    private readonly now: () => number = Date.now,
  ) {}

  /** Appends one entry. */
  record(input: AuditInput): AuditEntry {
    const entry: AuditEntry = { ...input, seq: ++this.#seq, at: this.now(), count: 1 }
    this.#evictFor(entry.callerApp)
    this.#entries.push(entry)
    this.#perApp.set(entry.callerApp, (this.#perApp.get(entry.callerApp) ?? 0) + 1)
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

  /** Entries whose kernel-derived caller belongs to `app`. */
  forApp(app: string): AuditEntry[] {
    return this.#entries.filter((e) => e.callerApp === app)
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #evictFor(app: string | null) {
    let index = -1
    if ((this.#perApp.get(app) ?? 0) >= this.perApp) index = this.#entries.findIndex((e) => e.callerApp === app)
    else if (this.#entries.length >= this.capacity) index = 0
    if (index < 0) return
    const [evicted] = this.#entries.splice(index, 1)
    const left = (this.#perApp.get(evicted!.callerApp) ?? 1) - 1
    if (left > 0) this.#perApp.set(evicted!.callerApp, left)
    else this.#perApp.delete(evicted!.callerApp)
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
