/**
 * The bridge stage: carries an envelope draft between an orchestration and its
 * agent sessions. Delivery is at least once: a failed send is retried with
 * exponential back-off, and after `tries` attempts the draft goes to the
 * sender's dead-letter address, where its owner can read it. The receiver
 * appends drafts to its content-addressed ledger (or keys them by message id),
 * so a redelivered draft is a `duplicate`, never a second effect.
 *
 * Every delivery begins on a later turn of the event loop: an orchestration and its agents answer
 * each other across the bridge, and without the yield their exchange would be one chain of calls
 * that holds the thread (and every other request) until the orchestration ends (event-loop.ts).
 */
import { laterTurn } from '../core/event-loop.ts'

export interface BridgeOptions {
  /** Attempts before the draft is dead-lettered. */
  tries?: number
  /** The first retry's delay; each next one doubles it. */
  baseDelayMs?: number
  /** Records a draft that could not be delivered. */
  deadLetter(draft: BridgeDraft, error: { code: string; message: string; tries: number }): void
  sleep?: (ms: number) => Promise<void>
}

/** What crosses the bridge: an envelope draft (the receiver seals it). */
export interface BridgeDraft {
  topic: string
  type: string
  author: string
  time: number
  payload: unknown
}

export type Delivery<R> = { ok: true; answer: R; tries: number } | { ok: false; error: { code: string; message: string; tries: number } }

/**
 * @example
 * const toOrchestration = bridge({ deadLetter: (draft, error) => ledger.append({ ...draft, topic: dead }) })
 * const sent = await toOrchestration.deliver(draft, (d) => settled(env.ORCHESTRATIONS.getByName(id)).receive(d))
 */
export function bridge(options: BridgeOptions) {
  const tries = options.tries ?? 5
  const base = options.baseDelayMs ?? 100
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  return {
    async deliver<R>(draft: BridgeDraft, send: (draft: BridgeDraft) => Promise<R>): Promise<Delivery<R>> {
      let last: unknown
      await laterTurn()
      for (let attempt = 1; attempt <= tries; attempt++) {
        try {
          return { ok: true, answer: await send(draft), tries: attempt }
        } catch (error) {
          last = error
          // A refusal the receiver decided (a coded error with a 4xx status) will not change on retry.
          if (isRefusal(error)) break
          if (attempt < tries) await sleep(base * 2 ** (attempt - 1))
        }
      }
      const error = { code: codeOf(last), message: last instanceof Error ? last.message : String(last), tries }
      options.deadLetter(draft, error)
      return { ok: false, error }
    },
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : 'BRIDGE_UNDELIVERABLE'
}

function isRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' && status >= 400 && status < 500
}
