/**
 * The envelope (spec §1.2): four schema planes, content-addressed.
 *
 * - plane 0: the envelope format itself, pinned as `v: "event-bus-envelope-v1"`
 * - plane 1: header values, each optionally naming its schema `ref`
 * - plane 2: the body contract: a body is exactly one of an inline `payload` or a
 *   `payloadRef` to the artifact store, plus `artifacts` evidence links
 * - plane 3: the payload, validated against the registered schema named by `schema`
 *
 * `id = sha256(RFC 8785 canonical form of everything but id)`.
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { parseOrThrow } from '../core/validate.ts'
import { isAddress } from './address.ts'
import { sha256Hex } from './hash.ts'
import type { Header } from './headers.ts'
import { canonicalJson, type Json, utf8Length } from './json.ts'

export const ENVELOPE_V1 = 'event-bus-envelope-v1'

/** Evidence that rides with the record (spec §1.2). */
export interface ArtifactLink {
  ref: string
  hash?: string
  kind?: string
}

/** Where a payload over the inline cap lives: the artifact store, by content hash. */
export interface PayloadRef {
  ref: string
  hash: string
  size: number
}

/** A sealed, content-addressed envelope. Exactly one of `payload` / `payloadRef` may be set. */
export interface Envelope {
  v: typeof ENVELOPE_V1
  id: string
  topic: string
  type: string
  parent: string | null
  author: string
  time: number
  headers: Header[]
  schema?: string
  payload?: Json
  payloadRef?: PayloadRef
  artifacts: ArtifactLink[]
}

/**
 * An envelope as the ledger hands it out: with its aggregate sequence, and always with its
 * payload (read back from the artifact store when it spilled; `payloadRef` then says so, and
 * the id is the one computed over the reference).
 */
export type Stored = Envelope & { seq: number }

const ID = /^[0-9a-f]{64}$/

const HeaderSchema = z.strictObject({
  key: z.string().min(1).max(256),
  value: z.unknown(),
  reason: z.string().max(4096).optional(),
  ref: z.string().min(1).max(256).optional(),
})

const ArtifactLinkSchema = z.strictObject({
  ref: z.string().min(1).max(2048),
  hash: z.string().min(1).max(256).optional(),
  kind: z.string().min(1).max(256).optional(),
})

/** What a caller appends: the envelope before it is sealed (no id, time defaults to now). */
export const EnvelopeDraftSchema = z.strictObject({
  topic: z.string().refine(isAddress, 'must be an address: dot-separated segments of [A-Za-z0-9_:-]'),
  type: z.string().min(1).max(256),
  parent: z.string().regex(ID, 'must be a 64-hex envelope id').nullable().optional(),
  author: z.string().min(1).max(256),
  time: z.number().int().nonnegative().optional(),
  headers: z.array(HeaderSchema).max(1024).optional(),
  schema: z.string().min(1).max(256).optional(),
  payload: z.unknown().optional(),
  artifacts: z.array(ArtifactLinkSchema).max(1024).optional(),
})

const DRAFT_KEYS = new Set(['topic', 'type', 'parent', 'author', 'time', 'headers', 'schema', 'payload', 'artifacts'])
const HEADER_KEYS = new Set(['key', 'value', 'reason', 'ref'])
const isBounded = (v: unknown, max: number): v is string => typeof v === 'string' && v.length >= 1 && v.length <= max
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** A header list within `HeaderSchema`'s rules, plain objects with known keys only (an optional key, when present, is set). */
function plainHeaders(headers: unknown): boolean {
  if (!Array.isArray(headers) || headers.length > 1024) return false
  for (const header of headers) {
    if (!isPlainObject(header) || !isBounded(header.key, 256) || !('value' in header)) return false
    for (const key in header) if (!HEADER_KEYS.has(key)) return false
    if ('reason' in header && !(typeof header.reason === 'string' && header.reason.length <= 4096)) return false
    if ('ref' in header && !isBounded(header.ref, 256)) return false
  }
  return true
}

/**
 * The draft itself when it is the common, plainly valid shape: known keys only, plain headers
 * (a gate's principal, claims and decision), no artifacts (or an empty list), every field within
 * `EnvelopeDraftSchema`'s rules. Anything else
 * (including every invalid draft) returns null and goes through the schema, which owns the error
 * messages. Every appended event passes here, so this saves the schema walk on the hot path; a
 * test checks it accepts nothing the schema refuses.
 */
export function plainDraft(input: unknown): EnvelopeDraft | null {
  if (!isPlainObject(input)) return null
  const d = input
  for (const key in d) if (!DRAFT_KEYS.has(key)) return null
  if (typeof d.topic !== 'string' || !isAddress(d.topic)) return null
  if (!isBounded(d.type, 256) || !isBounded(d.author, 256)) return null
  if (d.parent !== undefined && d.parent !== null && (typeof d.parent !== 'string' || !ID.test(d.parent))) return null
  if (d.time !== undefined && !(Number.isSafeInteger(d.time) && (d.time as number) >= 0)) return null
  if (d.schema !== undefined && !isBounded(d.schema, 256)) return null
  if (d.headers !== undefined && !plainHeaders(d.headers)) return null
  if (d.artifacts !== undefined && !(Array.isArray(d.artifacts) && d.artifacts.length === 0)) return null
  return d as unknown as EnvelopeDraft
}

export type EnvelopeDraft = {
  topic: string
  type: string
  parent?: string | null
  author: string
  time?: number
  headers?: Header[]
  schema?: string
  payload?: unknown
  artifacts?: ArtifactLink[]
}

/** The limits a seal enforces. Payloads over `payloadCap` bytes spill to the artifact store. */
export interface SealLimits {
  payloadCap: number
  envelopeCap: number
}

export const DEFAULT_LIMITS: SealLimits = { payloadCap: 1024 * 1024, envelopeCap: 1536 * 1024 }

/** A sealed envelope with the canonical text of each stored column, computed once. */
export interface Sealed {
  envelope: Envelope
  columns: { headers: string; payload: string | null; payloadRef: string | null; artifacts: string }
  /** The payload bytes to store as an artifact when it spilled. */
  spill: { hash: string; bytes: Uint8Array } | null
}

/**
 * Validates a draft and seals it: canonical form, content id, payload spill.
 *
 * @example
 * const { envelope } = seal({ topic: 'session.s1', type: 'note', author: 'user:ada', payload: { text: 'hi' } })
 * envelope.id // 64 hex chars, stable for the same content
 */
export function seal(input: unknown, limits: SealLimits = DEFAULT_LIMITS, now = Date.now()): Sealed {
  const draft = plainDraft(input) ?? parseOrThrow(EnvelopeDraftSchema, input, 'INVALID_ENVELOPE')
  const headers = (draft.headers ?? []) as Header[]
  const artifacts = draft.artifacts ?? []
  const headersText = canonicalJson(headers)
  const artifactsText = canonicalJson(artifacts)
  const payloadText = draft.payload === undefined ? null : canonicalJson(draft.payload)

  let spill: Sealed['spill'] = null
  let payloadRef: PayloadRef | undefined
  // Measured once: the payload is usually most of the envelope.
  const payloadBytes = payloadText === null ? 0 : utf8Length(payloadText)
  if (payloadText !== null && payloadBytes > limits.payloadCap) {
    const bytes = new TextEncoder().encode(payloadText)
    const hash = sha256Hex(bytes)
    spill = { hash, bytes }
    payloadRef = { ref: `sha256:${hash}`, hash, size: bytes.byteLength }
  }
  const payloadRefText = payloadRef ? canonicalJson(payloadRef) : null
  const inlinePayload = spill ? null : payloadText
  const time = draft.time ?? now
  const parent = draft.parent ?? null

  // Keys in RFC 8785 order (UTF-16 code units), so the column texts are reused verbatim.
  let head = `{"artifacts":${artifactsText},"author":${JSON.stringify(draft.author)},"headers":${headersText}`
  head += `,"parent":${parent === null ? 'null' : JSON.stringify(parent)}`
  let tail = ''
  if (payloadRefText !== null) tail += `,"payloadRef":${payloadRefText}`
  if (draft.schema !== undefined) tail += `,"schema":${JSON.stringify(draft.schema)}`
  tail += `,"time":${time},"topic":${JSON.stringify(draft.topic)},"type":${JSON.stringify(draft.type)},"v":"${ENVELOPE_V1}"}`
  const text = inlinePayload === null ? head + tail : `${head},"payload":${inlinePayload}${tail}`

  const size = utf8Length(head) + utf8Length(tail) + (inlinePayload === null ? 0 : payloadBytes + 11)
  if (size > limits.envelopeCap) {
    throw new NeuronError('ENVELOPE_TOO_LARGE', `envelope is ${size} bytes; the cap is ${limits.envelopeCap} (payloads over ${limits.payloadCap} spill to artifacts, the rest must fit)`, {
      status: 413,
      details: { size, cap: limits.envelopeCap },
    })
  }

  const envelope: Envelope = {
    v: ENVELOPE_V1,
    id: sha256Hex(text),
    topic: draft.topic,
    type: draft.type,
    parent,
    author: draft.author,
    time,
    headers,
    artifacts,
  }
  if (draft.schema !== undefined) envelope.schema = draft.schema
  if (inlinePayload !== null) envelope.payload = draft.payload as Json
  if (payloadRef) envelope.payloadRef = payloadRef
  return {
    envelope,
    columns: { headers: headersText, payload: inlinePayload, payloadRef: payloadRefText, artifacts: artifactsText },
    spill,
  }
}

