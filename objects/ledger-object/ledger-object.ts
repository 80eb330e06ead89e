/**
 * LedgerObject: a standalone ledger, one per name. It is the Rung 0 seed: the
 * topic log, the four query verbs and conversation chains, live in one Durable
 * Object. Sessions embed the same `Ledger`; the bus (`ledger/bus.ts`) is
 * composed into an object wherever it has subscribers to serve.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import { Conversations, type Turn } from '../graph/conversation.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import { type Appended, envelopeNotFound, Ledger } from '../ledger/ledger.ts'
import { migrate, moduleMigrations, tables } from '../core/migrations.ts'
import { LEDGER_BY_SEQ_TABLES } from '../ledger/tables.ts'
import type { Page, PageOptions } from '../ledger/page.ts'
import type { Plane, RegisteredSchema } from '../ledger/registry.ts'
import { answerFailures } from '../core/rpc.ts'
import verbIndexes from '../../migrations/ledger-object/migrations.js'
import legacy from '../../migrations/legacy/ledger-object/migrations.js'

/**
 * The standalone ledger's tables: the ledger's, keyed by sequence, and its own verb indexes. Its
 * objects built before composition carry the folder now under migrations/legacy/ledger-object.
 */
export const TABLES = tables([LEDGER_BY_SEQ_TABLES, moduleMigrations('ledger-object', verbIndexes)], {
  folder: legacy,
  equals: { 'ledger-by-seq': '0000_init', 'ledger-object': '0000_verb_indexes' },
})

export class LedgerObject extends DurableObject<Env> {
  protected readonly ledger: Ledger
  protected readonly conversations: Conversations

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.conversations = new Conversations(this.ledger)
    // Its own folder: the log indexed for every verb it serves (see ./schema.ts).
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  append(draft: unknown): Appended {
    return this.ledger.append(draft)
  }

  get(id: string): Stored | null {
    return this.ledger.get(id) ?? null
  }

  head(): number {
    return this.ledger.head()
  }

  byTopic(topic: string, options?: PageOptions): Page {
    return this.ledger.byTopic(topic, options)
  }

  byType(type: string, options?: PageOptions): Page {
    return this.ledger.byType(type, options)
  }

  byTime(from: number, to: number, options?: PageOptions): Page {
    return this.ledger.byTime(from, to, options)
  }

  /** Walks up from `id`; `NOT_FOUND` (404) when no envelope has that id, like `get`. */
  ancestors(id: string, options?: PageOptions): Page {
    this.mustHave(id)
    return this.ledger.ancestors(id, options)
  }

  /** Walks down from `id`; `NOT_FOUND` (404) when no envelope has that id, like `get`. */
  descendants(id: string, options?: PageOptions): Page {
    this.mustHave(id)
    return this.ledger.descendants(id, options)
  }

  registerSchema(ref: string, jsonSchema: Record<string, unknown>, plane: Plane = 3): RegisteredSchema {
    return this.ledger.schemas.register(ref, jsonSchema, plane)
  }

  private mustHave(id: string): void {
    if (!this.ledger.has(id)) throw envelopeNotFound(id)
  }

  openConversation(id: string, author: string, meta: Json = {}): Stored {
    return this.conversations.open(id, author, meta)
  }

  say(id: string, turn: { role: string; content: Json; author: string; branch?: string }): Turn {
    return this.conversations.say(id, turn)
  }

  fork(id: string, at: string, branch: string, author: string): Stored {
    return this.conversations.fork(id, at, branch, author)
  }

  truncate(id: string, branch: string, to: string, author: string): Stored {
    return this.conversations.truncate(id, branch, to, author)
  }

  transcript(id: string, options?: { branch?: string; limit?: number }): { turns: Turn[]; more: boolean } {
    return this.conversations.transcript(id, options)
  }
}

// Expected failures of the RPC surface are answers, not uncaught errors (objects/core/rpc.ts).
answerFailures(LedgerObject, ['append', 'get', 'head', 'byTopic', 'byType', 'byTime', 'ancestors', 'descendants', 'registerSchema', 'openConversation', 'say', 'fork', 'truncate', 'transcript'])
