import { describe, expect, it } from 'vitest'
import { checkJson, stringBytes } from '../../../shell-web/protocol/json-compat.ts'

const MiB = 1024 * 1024

describe('checkJson', () => {
  it('counts exactly the UTF-8 bytes of JSON.stringify', () => {
    const samples = [null, true, 0, -1.5e-7, 'plain', 'quote " back \\ nl \n tab \t ctl \u0001', 'é ü 漢字 😀', { a: [1, { b: 'c' }], 'key with space': [] }, [[], {}, ''], '\ud800 lone']
    for (const value of samples) {
      const verdict = checkJson(value, MiB)
      expect(verdict).toEqual({ ok: true, bytes: new TextEncoder().encode(JSON.stringify(value)).length })
    }
  })

  it.each([
    ['a cycle', (() => { const a: Record<string, unknown> = {}; a.self = a; return a })(), 'cyclic'],
    ['a Date', { when: new Date() }, 'Date'],
    ['a Map', new Map(), 'Map'],
    ['a typed array', { bytes: new Uint8Array(4) }, 'Uint8Array'],
    ['an ArrayBuffer', new ArrayBuffer(2), 'ArrayBuffer'],
    ['a class instance', new (class Point { x = 1 })(), 'Point'],
    ['a boxed string', new String('x'), 'String'],
    ['NaN', { n: NaN }, 'non-finite'],
    ['Infinity', [Infinity], 'non-finite'],
    ['undefined', { u: undefined }, 'undefined'],
    ['an array hole', [1, , 3], 'undefined'],
    ['a function', { f() {} }, 'function'],
    ['a bigint', 1n, 'bigint'],
    ['a symbol', Symbol('s'), 'symbol'],
  ])('rejects %s as NOT_JSON_COMPATIBLE', (_name, value, reason) => {
    const verdict = checkJson(value, MiB)
    expect(verdict.ok).toBe(false)
    if (verdict.ok) return
    expect(verdict.code).toBe('NOT_JSON_COMPATIBLE')
    expect(verdict.reason).toContain(reason)
  })

  it('allows shared (non-cyclic) references and null-prototype objects', () => {
    const shared = { x: 1 }
    expect(checkJson({ a: shared, b: shared, c: Object.assign(Object.create(null), { d: 2 }) }, MiB).ok).toBe(true)
  })

  it('reports the path of the offending value', () => {
    const verdict = checkJson({ items: [{ ok: 1 }, { when: new Date() }] }, MiB)
    expect(verdict).toMatchObject({ ok: false, path: '$.items[1].when' })
  })

  it('rejects payloads over the byte budget, at the exact boundary', () => {
    const fits = 'x'.repeat(MiB - 2)
    expect(checkJson(fits, MiB)).toEqual({ ok: true, bytes: MiB })
    expect(checkJson(fits + 'x', MiB)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
  })

  it('rejects nesting deeper than the limit', () => {
    let deep: unknown = 0
    for (let i = 0; i < 70; i++) deep = [deep]
    expect(checkJson(deep, MiB, 64)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_DEEP' })
  })

  it('stringBytes agrees with TextEncoder on escapes and surrogates', () => {
    for (const s of ['', 'a', '"', '\u2028', '😀', '\udc00', '\b\f\r']) {
      expect(stringBytes(s)).toBe(new TextEncoder().encode(JSON.stringify(s)).length)
    }
  })
})
