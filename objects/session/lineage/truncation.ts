/**
 * Truncation as the model sees it: a named stage between the session's folded
 * history and the provider request, composed in the SessionObject. A
 * `session.next.truncated` event records a cut: the messages the current context
 * epoch's history held at the truncation point (`keep`) and at the moment of
 * truncating (`drop`), and which epoch that is. The view leaves out every cut
 * range of the current epoch; the log keeps every event, and the history fold
 * itself is unchanged. A compaction summarises what the model saw (cuts
 * applied) into a new epoch, which the old epoch's cuts no longer concern.
 */
import type { Stored } from '../../ledger/envelope.ts'
import { type Folded, Ledger } from '../../ledger/ledger.ts'
import type { Page, PageOptions } from '../../ledger/page.ts'
import type { LlmMessage } from '../../llm/types.ts'
import { EVENT, type EventPayloads, isEvent } from '../events/events.ts'
import { History } from '../turn/history.ts'
import type { SessionState } from '../events/projection.ts'

type Cut = EventPayloads[typeof EVENT.truncated]

/**
 * @example
 * const truncations = new Truncations(ledger, 'session.s1')
 * const messages = truncations.view(history.messages())
 */
export class Truncations {
  private folded: Folded<Cut[]> | undefined

  constructor(
    private readonly ledger: Ledger,
    private readonly topic: string,
  ) {}

  /** The messages the model is shown: the epoch's history without its cut ranges. */
  view(messages: LlmMessage[], epoch: SessionState['epoch']): LlmMessage[] {
    this.folded = this.ledger.fold(this.topic, (cuts: Cut[], e) => (isEvent(e, EVENT.truncated) ? [...cuts, e.payload] : cuts), [], this.folded)
    return withoutCuts(messages, this.folded.state, epochKey(epoch))
  }
}

/**
 * The messages of the epoch folded after event `epoch`, without the ranges its cuts left out.
 *
 * @example
 * withoutCuts(messages, [{ at: 9, keep: 2, drop: 5, epoch: 0 }], 0) // messages 0, 1, then 5…
 */
export function withoutCuts(messages: LlmMessage[], cuts: Cut[], epoch: number): LlmMessage[] {
  const mine = cuts.filter((cut) => (cut.epoch ?? 0) === epoch)
  if (mine.length === 0) return messages
  return messages.filter((_, i) => !mine.some((cut) => i >= cut.keep && i < cut.drop))
}

/** Which epoch a cut belongs to: the sequence its messages are folded after (0 for the first). */
export function epochKey(epoch: SessionState['epoch']): number {
  return epoch?.seq ?? 0
}

/**
 * How many messages of `epoch` the history held as of event `at`: the same fold,
 * over the session's log as it stood then.
 */
export function messagesAt(storage: DurableObjectStorage, topic: string, at: number, epoch: SessionState['epoch']): number {
  return new History(new LedgerAt(storage, at), topic).messages({ epoch, pending: [], lastSeq: at }).length
}

/** A ledger read as it stood at sequence `at`: by-topic pages end there. */
class LedgerAt extends Ledger {
  constructor(
    storage: DurableObjectStorage,
    private readonly at: number,
  ) {
    super(storage)
  }

  override byTopic(topic: string, options: PageOptions = {}): Page {
    const page = super.byTopic(topic, options)
    const items = page.items.filter((e: Stored) => e.seq <= this.at)
    return { items, next: items.length < page.items.length ? null : page.next }
  }
}
