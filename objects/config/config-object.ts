/**
 * ConfigObject: one per principal. Its config document is append-only: every
 * PUT is a new version in the object's ledger, the current one is the latest,
 * and its ETag names the version. A PUT whose `If-Match` names an older version
 * is refused (412), so two clients cannot overwrite each other unknowingly.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'
import { NeuronError } from '../errors.ts'
import type { Json, JsonObject } from '../ledger/json.ts'
import { Ledger, migrateLedger } from '../ledger/ledger.ts'
import { parseOrThrow } from '../validate.ts'
import { ConfigSchema } from './schema.ts'

const TOPIC = 'config.document'

/** A version of the document; version 0 is the empty document nobody wrote. */
export interface ConfigVersion {
  version: number
  etag: string
  /** A `ConfigDocument`, as plain JSON (what crosses RPC). */
  document: JsonObject
}

/** The ETag of a version: a strong validator naming it. */
export const etagOf = (version: number) => `"v${version}"`

export class ConfigObject extends DurableObject<Env> {
  protected readonly ledger: Ledger

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    void ctx.blockConcurrencyWhile(() => migrateLedger(ctx.storage))
  }

  /** The current version. */
  current(): ConfigVersion {
    const latest = this.ledger.latest(TOPIC)
    if (!latest) return { version: 0, etag: etagOf(0), document: {} }
    return { version: latest.seq, etag: etagOf(latest.seq), document: this.ledger.payload(latest) as JsonObject }
  }

  /**
   * Stores a new version. `ifMatch` (an ETag, or `*`) must name the current version when given.
   *
   * @example
   * stub.put('user#ada', { instructions: ['Answer in French.'] }, '"v0"')
   */
  put(author: string, input: unknown, ifMatch?: string): ConfigVersion {
    const document = parseOrThrow(ConfigSchema, input, 'INVALID_CONFIG')
    const current = this.current()
    if (ifMatch !== undefined && ifMatch !== '*' && !ifMatch.split(',').map((tag) => tag.trim()).includes(current.etag)) {
      throw new NeuronError('CONFIG_VERSION_MISMATCH', `If-Match ${ifMatch} does not name the current version ${current.etag}; GET it, merge, and PUT again`, {
        status: 412,
        details: { current: current.etag },
      })
    }
    const { envelope } = this.ledger.append({ topic: TOPIC, type: 'config.put', author, payload: document as unknown as Json })
    return { version: envelope.seq, etag: etagOf(envelope.seq), document: document as JsonObject }
  }
}
