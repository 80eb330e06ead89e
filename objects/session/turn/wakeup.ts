/**
 * When a session's runner starts: after an admission has committed, when its `wakeup` or
 * `watchdog` timer fires (objects/core/timers.ts), or at once. The watchdog (watchdog.ts) is armed
 * first every time, so an object evicted while its runner works is revived.
 *
 * After an admission the runner waits for the commit: nothing commits, and no subscriber gets a
 * frame, until the admitting step's JavaScript ends, and a drain's first steps (its events, the
 * MCP listing, the config reads) would otherwise run inside that step. The alarm still joins the
 * admission's commit, since it is armed before the step ends.
 *
 * @example
 * const wakeup = new Wakeup({ storage: ctx.storage, watchdog, mcp, runner, hasWork: () => pending > 0 })
 * wakeup.afterCommit()   // an admission was just written
 * await wakeup.alarm()   // the handler of the session's wake-up and watchdog timers
 */
import type { Watchdog } from './watchdog.ts'

/** What waking needs of the session object. */
export interface WakeupHost {
  readonly storage: Pick<DurableObjectStorage, 'sync'>
  readonly watchdog: Watchdog
  /** The layered tool lists (MCP servers', uploaded modules'): each bounded in time, never throwing. */
  readonly toolsets: { refresh(): Promise<void> }
  /** The agent profile the session runs, resolved again; never throws (session-profile.ts). */
  readonly profile: { refresh(): Promise<void> }
  readonly runner: { wake(): Promise<void>; readonly busy: boolean }
  /** Whether prompts wait or a loop is open. */
  hasWork(): boolean
}

export class Wakeup {
  constructor(private readonly host: WakeupHost) {}

  /** The step that admitted work is about to commit: the alarm joins it, the runner starts after it. */
  afterCommit(): void {
    void this.host.watchdog.arm()
    void this.host.storage.sync().then(() => this.now())
  }

  /** Starts the runner (or joins its drain); resolves when the session is idle. */
  async now(): Promise<void> {
    // Armed before the first await: in the same commit as whatever woke the runner.
    await this.host.watchdog.arm()
    await this.host.toolsets.refresh()
    await this.host.profile.refresh()
    await this.host.runner.wake()
  }

  /** A wake-up or watchdog timer fired: a busy runner keeps its watchdog; an idle one with work is started. */
  async alarm(): Promise<void> {
    if (this.host.runner.busy) return this.host.watchdog.arm()
    if (this.host.hasWork()) await this.now()
  }
}
