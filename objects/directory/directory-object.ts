/**
 * DirectoryObject: which sessions and ledgers exist, so a read of an unknown id
 * is answered without reaching (and so creating) that id's object. A Durable
 * Object gets its SQLite database the moment it is first addressed, even if it
 * never writes; the worker asks a directory shard first (see
 * worker/directory.ts) and only addresses objects the directory knows.
 *
 * An entry is an envelope whose content is just its key, at a fixed time: its
 * content id is a function of the key, so `has` is one primary-key lookup and
 * adding a key twice is the ledger's ordinary duplicate no-op.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'
import { seal } from '../ledger/envelope.ts'
import { Ledger, migrateLedger } from '../ledger/ledger.ts'

const TOPIC = 'directory.entries'

/** The draft that records `key`; the same key always seals to the same id. */
function entry(key: string) {
  return { topic: TOPIC, type: 'directory.entry', author: 'object:directory', time: 0, payload: { key } }
}

/**
 * @example
 * await env.DIRECTORY.getByName('shard-3').add('session:demo')
 * await env.DIRECTORY.getByName('shard-3').has('session:demo') // true
 */
export class DirectoryObject extends DurableObject<Env> {
  private readonly ledger: Ledger

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    void ctx.blockConcurrencyWhile(() => migrateLedger(ctx.storage))
  }

  /** Records that `key` exists; idempotent. */
  add(key: string): void {
    this.ledger.append(entry(key))
  }

  /** Whether `key` was ever added. */
  has(key: string): boolean {
    return this.ledger.get(seal(entry(key)).envelope.id) !== undefined
  }
}
