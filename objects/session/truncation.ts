/**
 * Truncation as the model sees it: a named stage between the session's folded
 * history and the provider request, composed in the SessionObject. A
 * `session.next.truncated` event records a cut: the messages the history held
 * at the truncation point (`keep`) and at the moment of truncating (`drop`).
 * The view leaves out every cut range; the log keeps every event, and the
 * history fold itself is unchanged.
 */
import type { Stored } from '../ledger/envelope.ts'
import { type Folded, Ledger, type Page, type PageOptions } from '../ledger/ledger.ts'
import type { LlmMessage } from '../llm/types.ts'
import { EVENT, type EventPayloads } from './events.ts'
import { History } from './history.ts'

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

  /** The messages the model is shown: the history without its cut ranges. */
  view(messages: LlmMessage[]): LlmMessage[] {
    this.folded = this.ledger.fold(this.topic, (cuts: Cut[], e) => (e.type === EVENT.truncated ? [...cuts, e.payload as unknown as Cut] : cuts), [], this.folded)
    const cuts = this.folded.state
    if (cuts.length === 0) return messages
    return messages.filter((_, i) => !cuts.some((cut) => i >= cut.keep && i < cut.drop))
  }
}

/**
 * How many history messages the model saw as of event `at`: the same fold,
 * over the session's log as it stood then.
 */
export function messagesAt(storage: DurableObjectStorage, topic: string, at: number): number {
  return new History(new LedgerAt(storage, at), topic).messages().length
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
