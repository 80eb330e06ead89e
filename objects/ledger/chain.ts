/**
 * A topic written as a causal chain: each envelope names the previous one as
 * its parent. That makes the topic walkable by causality, and keeps two
 * otherwise identical entries distinct under content addressing.
 */
import type { Stored } from './envelope.ts'
import type { Header } from './headers.ts'
import type { Ledger } from './ledger.ts'

/**
 * @example
 * const usage = new Chain(ledger, 'meter.usage')
 * usage.append('meter.turn', 'session:s1', { tokens: 42 })
 */
export class Chain {
  /** The last id on the topic, read once per wake. */
  private last: string | null | undefined

  constructor(
    private readonly ledger: Ledger,
    readonly topic: string,
  ) {}

  append(type: string, author: string, payload: unknown, headers: Header[] = []): Stored {
    if (this.last === undefined) this.last = this.ledger.latest(this.topic)?.id ?? null
    const { envelope } = this.ledger.append({ topic: this.topic, type, author, parent: this.last, headers, payload })
    this.last = envelope.id
    return envelope
  }
}
