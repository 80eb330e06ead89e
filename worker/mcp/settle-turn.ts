/**
 * Waiting for a prompted turn to settle, bounded: the session's view is read
 * with a growing pause until it is idle or the bound passes, then the reply is
 * read from the durable events after the prompt's admission. A turn that runs
 * longer is left running; the caller gets `status: "running"` and reads the
 * rest from the history.
 */
import type { Caller } from '../../objects/access/authorize.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { Page } from '../../objects/ledger/page.ts'
import { EVENT, isEvent } from '../../objects/session/events/events.ts'
import type { SessionView } from '../../objects/session/events/projection.ts'

/** The part of a session stub this needs. */
export interface SettleStub {
  view(caller: Caller): Promise<SessionView>
  history(caller: Caller, after: number, limit: number): Promise<Page>
}

export interface SettledTurn {
  status: 'settled' | 'running'
  /** The assistant's text after the prompt, in order. */
  reply: string
  /** Tool calls that failed, and why. */
  failures: { code: string; message: string }[]
}

/**
 * @example
 * const turn = await settleTurn(stub, caller, receipt.sequence, 30_000) // { status: 'settled', reply: '…', failures: [] }
 */
export async function settleTurn(stub: SettleStub, caller: Caller, after: number, waitMs: number): Promise<SettledTurn> {
  const deadline = Date.now() + waitMs
  let pause = 25
  for (;;) {
    if ((await stub.view(caller)).status === 'idle') break
    if (Date.now() + pause > deadline) return { status: 'running', reply: '', failures: [] }
    await new Promise((resolve) => setTimeout(resolve, pause))
    pause = Math.min(pause * 2, 500)
  }
  const events: Stored[] = []
  for (let cursor: number | null = after; cursor !== null && events.length < 10_000; ) {
    const page: Page = await stub.history(caller, cursor, 1000)
    events.push(...page.items)
    cursor = page.next
  }
  const reply: string[] = []
  const failures: { code: string; message: string }[] = []
  for (const event of events) {
    if (isEvent(event, EVENT.text)) reply.push(event.payload.text)
    if (isEvent(event, EVENT.toolFailed) || isEvent(event, EVENT.stepFailed)) failures.push(event.payload.error)
  }
  return { status: 'settled', reply: reply.join('\n'), failures }
}
