/**
 * Versioned config documents over a ledger topic: every write appends a new
 * version, the current one is the latest, and its ETag names it. A write whose
 * `If-Match` names an older version is refused (412), so two clients cannot
 * overwrite each other unknowingly. Used by the principal's ConfigObject and
 * by a session's overrides alike.
 */
import { NeuronError } from '../core/errors.ts'
import type { Json, JsonObject } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { parseOrThrow } from '../core/validate.ts'
import { ConfigSchema } from './schema.ts'
import type { ConfigVersion } from './views.ts'


/** The ETag of a version: a strong validator naming it. */
export type { ConfigVersion }

export const etagOf = (version: number) => `"v${version}"`

/**
 * The current version stored under `topic`.
 *
 * @example
 * currentVersion(ledger, 'config.document') // { version: 0, etag: '"v0"', document: {} } before any write
 */
export function currentVersion(ledger: Ledger, topic: string): ConfigVersion {
  const latest = ledger.latest(topic)
  if (!latest) return { version: 0, etag: etagOf(0), document: {} }
  return { version: latest.seq, etag: etagOf(latest.seq), document: ledger.payload(latest) as JsonObject }
}

/**
 * Validates `input` and appends it as the new version. `ifMatch` (an ETag list, or `*`) must name
 * the current version when given.
 *
 * @example
 * putVersion(ledger, 'config.document', 'user#ada', { instructions: ['Answer in French.'] }, '"v0"')
 */
export function putVersion(ledger: Ledger, topic: string, author: string, input: unknown, ifMatch?: string): ConfigVersion {
  const document = parseOrThrow(ConfigSchema, input, 'INVALID_CONFIG')
  const current = currentVersion(ledger, topic)
  if (ifMatch !== undefined && ifMatch !== '*' && !ifMatch.split(',').map((tag) => tag.trim()).includes(current.etag)) {
    throw new NeuronError('CONFIG_VERSION_MISMATCH', `If-Match ${ifMatch} does not name the current version ${current.etag}; GET it, merge, and PUT again`, {
      status: 412,
      details: { current: current.etag },
    })
  }
  const { envelope } = ledger.append({ topic, type: 'config.put', author, payload: document as unknown as Json })
  return { version: envelope.seq, etag: etagOf(envelope.seq), document: document as JsonObject }
}

/**
 * A session's effective config: its owner's document with the session's overrides laid over it,
 * key by key (an overridden key replaces the owner's value whole; `$schema` is never merged).
 *
 * @example
 * mergeConfig({ instructions: ['A'], skills: [s] }, { instructions: ['B'] }) // { instructions: ['B'], skills: [s] }
 */
export function mergeConfig(owner: JsonObject, overrides: JsonObject): JsonObject {
  const { $schema: _ignored, ...own } = overrides
  return { ...owner, ...own }
}
