/**
 * One orchestration, as the client sees it: its DAG with each package's beat,
 * agent and burn; its history; cancel (all or one package); a human's
 * clearance decision; and its events followed with the same resume rule as a
 * session's (no event skipped or yielded twice across reconnects).
 */
import { follow } from './follow.ts'
import type { Http } from './http.ts'
import { WorkspaceReader } from './workspace.ts'
import type { CancelInput, CancelResult, ClearanceInput, FollowOptions, OrchestrationView, Page, Stored } from './types.ts'

/** What an orchestration stream yields: durable events, and where replay ended. */
export type OrchestrationFrame = { kind: 'event'; envelope: Stored } | { kind: 'replay-end'; seq: number }

export class OrchestrationHandle {
  readonly id: string
  readonly #http: Http
  readonly #path: string

  /** The shared workspace its packages work in, when it was created with `workspace: 'shared'` (read-only here). */
  readonly workspace: WorkspaceReader

  constructor(http: Http, id: string) {
    this.#http = http
    this.id = id
    this.#path = `/v1/orchestrations/${encodeURIComponent(id)}`
    this.workspace = new WorkspaceReader(http, this.#path)
  }

  view(): Promise<OrchestrationView> {
    return this.#http.json('GET', this.#path)
  }

  /** One page of durable events; `address` narrows to `control`, `dead` or `agent.{token}`. */
  history(options: { after?: number; limit?: number; address?: string } = {}): Promise<Page> {
    const query = new URLSearchParams({ after: String(options.after ?? 0), limit: String(options.limit ?? 100) })
    if (options.address) query.set('address', options.address)
    return this.#http.json('GET', `${this.#path}/history?${query}`)
  }

  /** Cancels the whole orchestration, or one package with `{ package }`. */
  cancel(input: CancelInput = {}): Promise<CancelResult> {
    return this.#http.json('POST', `${this.#path}/cancel`, input)
  }

  /** A human's decision on a package waiting for clearance (needs the `role:clearance` claim). */
  clearance(pkg: string, input: ClearanceInput): Promise<OrchestrationView> {
    return this.#http.json('POST', `${this.#path}/packages/${encodeURIComponent(pkg)}/clearance`, input)
  }

  /**
   * @example
   * for await (const frame of run.events({ signal })) if (frame.kind === 'event') console.log(frame.envelope.type)
   */
  async *events(options: FollowOptions = {}): AsyncGenerator<OrchestrationFrame> {
    for await (const item of follow(this.#http, `${this.#path}/events`, options)) {
      if (item.kind === 'event') yield item
      else if (item.message.event === 'replay-end') yield { kind: 'replay-end', seq: (JSON.parse(item.message.data) as { seq: number }).seq }
    }
  }
}
