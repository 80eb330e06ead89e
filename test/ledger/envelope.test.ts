import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { ENVELOPE_V1, EnvelopeDraftSchema, plainDraft, seal } from '../../objects/ledger/envelope.ts'
import { sha256Hex } from '../../objects/ledger/hash.ts'
import { canonicalJson } from '../../objects/ledger/json.ts'

const draft = {
  topic: 'session.s1',
  type: 'note',
  author: 'user:ada',
  time: 1_700_000_000_000,
  headers: [{ key: 'b', value: 1 }, { key: 'a', value: { z: 1, y: [1, 2] } }],
  payload: { text: 'hi', n: 1.5 },
  artifacts: [{ ref: 'r2://x', kind: 'log' }],
}

function codeOf(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error instanceof NeuronError ? { code: error.code, status: error.status, details: error.details } : error
  }
  return 'no error'
}

describe('seal', () => {
  it('pins plane 0 and addresses content by sha256 of the canonical form', () => {
    const { envelope } = seal(draft)
    expect(envelope.v).toBe(ENVELOPE_V1)
    const { id, ...content } = envelope
    expect(id).toBe(sha256Hex(canonicalJson(content)))
  })

  it('gives the same id for the same content regardless of key order, a new id for any change', () => {
    const reordered = { payload: { n: 1.5, text: 'hi' }, artifacts: draft.artifacts, headers: draft.headers, time: draft.time, author: draft.author, type: draft.type, topic: draft.topic }
    expect(seal(reordered).envelope.id).toBe(seal(draft).envelope.id)
    expect(seal({ ...draft, payload: { text: 'hi', n: 1.6 } }).envelope.id).not.toBe(seal(draft).envelope.id)
    // Header order is causality: swapping two injections is different content.
    expect(seal({ ...draft, headers: [...draft.headers].reverse() }).envelope.id).not.toBe(seal(draft).envelope.id)
  })

  it('spills payloads over the cap to an artifact reference that still determines the id', () => {
    const limits = { payloadCap: 64, envelopeCap: 4096 }
    const big = { ...draft, payload: { text: 'x'.repeat(100) } }
    const sealed = seal(big, limits)
    expect(sealed.envelope.payload).toBeUndefined()
    const bytes = new TextEncoder().encode(canonicalJson(big.payload))
    expect(sealed.envelope.payloadRef).toEqual({ ref: `sha256:${sha256Hex(bytes)}`, hash: sha256Hex(bytes), size: bytes.byteLength })
    expect(sealed.spill?.bytes).toEqual(bytes)
    expect(seal({ ...big, payload: { text: 'y'.repeat(100) } }, limits).envelope.id).not.toBe(sealed.envelope.id)
  })

  it('rejects malformed drafts with INVALID_ENVELOPE and the failing fields', () => {
    const result = codeOf(() => seal({ topic: 'no spaces allowed', type: '', author: 'a', parent: 'xyz', extra: 1 })) as {
      code: string
      details: { issues: { path: string }[] }
    }
    expect(result.code).toBe('INVALID_ENVELOPE')
    expect(result.details.issues.map((i) => i.path).sort()).toEqual(['$', 'parent', 'topic', 'type'])
  })

  it('rejects payloads and header values that are not JSON-compatible', () => {
    expect(codeOf(() => seal({ ...draft, payload: { at: new Date(0) } }))).toMatchObject({
      code: 'NOT_JSON_COMPATIBLE',
      details: { path: '$.at' },
    })
    expect(codeOf(() => seal({ ...draft, headers: [{ key: 'k', value: Number.NaN }] }))).toMatchObject({
      code: 'NOT_JSON_COMPATIBLE',
    })
  })

  it('refuses an envelope that exceeds the row budget, counting an inline payload by its UTF-8 size', () => {
    const headers = [{ key: 'huge', value: 'h'.repeat(5000) }]
    expect(codeOf(() => seal({ ...draft, headers }, { payloadCap: 1024, envelopeCap: 4096 }))).toMatchObject({
      code: 'ENVELOPE_TOO_LARGE',
      status: 413,
    })
    // An inline payload counts toward the envelope (multi-byte characters by their UTF-8 size).
    const inline = { ...draft, headers: [], artifacts: [], payload: 'é'.repeat(400) }
    const { id: _id, ...content } = seal(inline).envelope
    const whole = new TextEncoder().encode(canonicalJson(content)).byteLength
    expect(codeOf(() => seal(inline, { payloadCap: 4096, envelopeCap: whole - 1 }))).toMatchObject({ code: 'ENVELOPE_TOO_LARGE', details: { size: whole } })
    expect(seal(inline, { payloadCap: 4096, envelopeCap: whole }).envelope.payload).toBe('é'.repeat(400))
  })
})

describe('the plain-draft fast path of seal', () => {
  const ok = { topic: 'session.s1', type: 'note', author: 'user:ada', payload: { text: 'hi' } }
  const id = 'a'.repeat(64)
  const valid: Record<string, unknown>[] = [
    ok,
    { ...ok, parent: null },
    { ...ok, parent: id, time: 0, schema: 'note.v1', headers: [], artifacts: [] },
    { ...ok, payload: undefined },
    { ...ok, type: 'x'.repeat(256), author: 'y'.repeat(256) },
    // a gate's headers: principal, claims, the decision; and a header's optional fields at their limits
    { ...ok, headers: [{ key: 'principal', value: 'user:ada' }, { key: 'claims', value: ['org:acme'] }, { key: 'authz', value: { decision: 'allow' } }] },
    { ...ok, headers: [{ key: 'k'.repeat(256), value: null, reason: 'r'.repeat(4096), ref: 'f'.repeat(256) }] },
  ]
  const invalid: unknown[] = [
    null, 'text', [ok], new Map(),
    { ...ok, extra: 1 },
    { ...ok, topic: 'not an address!' }, { ...ok, topic: '' }, { ...ok, topic: 3 },
    { ...ok, type: '' }, { ...ok, type: 'x'.repeat(257) }, { ...ok, author: '' }, { ...ok, author: 7 },
    { ...ok, parent: 'abc' }, { ...ok, parent: 'A'.repeat(64) }, { ...ok, parent: 1 },
    { ...ok, time: -1 }, { ...ok, time: 1.5 }, { ...ok, time: Number.NaN }, { ...ok, time: 2 ** 60 }, { ...ok, time: '1' },
    { ...ok, schema: '' }, { ...ok, schema: 'x'.repeat(257) },
    { ...ok, headers: {} }, { ...ok, artifacts: 'none' },
    { ...ok, headers: [null] }, { ...ok, headers: ['principal'] }, { ...ok, headers: [[]] },
    { ...ok, headers: [{ value: 1 }] }, { ...ok, headers: [{ key: '', value: 1 }] }, { ...ok, headers: [{ key: 'k'.repeat(257), value: 1 }] },
    { ...ok, headers: [{ key: 'k', value: 1, extra: 1 }] }, { ...ok, headers: [{ key: 'k', value: 1, reason: 'r'.repeat(4097) }] },
    { ...ok, headers: [{ key: 'k', value: 1, reason: 3 }] }, { ...ok, headers: [{ key: 'k', value: 1, ref: '' }] },
    { ...ok, headers: Array.from({ length: 1025 }, () => ({ key: 'k', value: 1 })) },
  ]

  it('takes the common valid drafts as they are, and the schema agrees with each', () => {
    for (const draft of valid) {
      expect(plainDraft(draft), JSON.stringify(draft)).toBe(draft)
      expect(EnvelopeDraftSchema.safeParse(draft).success, JSON.stringify(draft)).toBe(true)
    }
  })

  it('leaves everything else to the schema, so a refusal has the schema\'s code and message', () => {
    for (const draft of invalid) {
      expect(plainDraft(draft)).toBeNull()
      expect(() => seal(draft)).toThrow(expect.objectContaining({ code: 'INVALID_ENVELOPE' }))
    }
    // valid, but with artifacts, or a header not written plainly: the schema checks those lists
    const withArtifacts = { ...ok, artifacts: [{ ref: 'sha256:ab' }] }
    expect(plainDraft(withArtifacts)).toBeNull()
    expect(seal(withArtifacts).envelope.artifacts).toEqual([{ ref: 'sha256:ab' }])
    const header = Object.assign(Object.create({}), { key: 'principal', value: 'user:ada' })
    expect(plainDraft({ ...ok, headers: [header] })).toBeNull()
    expect(seal({ ...ok, headers: [header] }).envelope.headers).toEqual([{ key: 'principal', value: 'user:ada' }])
  })

  it('seals the same envelope either way', () => {
    const fast = seal({ ...ok, time: 5 })
    // the same fields on an object that is not a plain one: it takes the schema's path
    const other = Object.assign(Object.create({}), { ...ok, time: 5 })
    expect(plainDraft(other)).toBeNull()
    expect(seal(other)).toEqual(fast)
    // with headers: the same id, columns and envelope as the schema's copy gives
    const headers = [{ key: 'principal', value: 'user:ada' }, { key: 'claims', value: ['b', 'a'], reason: 'gate' }]
    const fastWithHeaders = seal({ ...ok, time: 5, headers })
    expect(plainDraft({ ...ok, time: 5, headers })).not.toBeNull()
    expect(seal(Object.assign(Object.create({}), { ...ok, time: 5, headers }))).toEqual(fastWithHeaders)
  })
})
