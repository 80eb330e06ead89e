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
    ['an array hole', [1, , 3], 'hole'],
    ['a function', { f() {} }, 'function'],
    ['a bigint', 1n, 'bigint'],
    ['a symbol', Symbol('s'), 'symbol'],
    ['an array with a named property', Object.assign([1], { hidden: 'x' }), 'besides its indices'],
    ['an array hiding a Date and bytes in named properties', Object.assign([1], { when: new Date(), bytes: new Uint8Array(16) }), 'besides its indices'],
    ['an array whose hole is balanced by a name', Object.assign([1, , 3], { a: 1 }), 'hole'],
    ['an Array subclass', new (class Tagged extends Array {})(), 'Tagged'],
    ['a Set', new Set([1]), 'Set'],
    ['a boxed number', new Number(1), 'Number'],
    ['a RegExp', /x/, 'RegExp'],
    ['an Error', new Error('x'), 'Error'],
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

  it('measures what structured clone delivers: an array with named properties never passes, whatever their size', () => {
    const a = Object.assign([1], { hidden: 'x'.repeat(2 << 20) })
    expect(checkJson({ a }, MiB)).toMatchObject({ ok: false, code: 'NOT_JSON_COMPATIBLE', path: '$.a' })
    expect(structuredClone(a).hidden).toHaveLength(2 << 20) // what the check is about
  })

  it('refuses a sparse array of length 2^32-1 by its length, without listing it', () => {
    const a: unknown[] = []
    a[2 ** 32 - 2] = 1
    expect(checkJson(a, MiB)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
  })

  it('counts near-1 MiB multibyte strings exactly', () => {
    const three = '\u6f22'.repeat((MiB - 2) / 2) // 3 bytes each in UTF-8
    expect(checkJson(three, MiB)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
    const fits = '\u00e9'.repeat((MiB - 2) / 2) // 2 bytes each: exactly 1 MiB with the quotes
    expect(checkJson(fits, MiB)).toEqual({ ok: true, bytes: MiB })
    expect(checkJson(fits + 'x', MiB)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
    const emoji = '\ud83d\ude00'.repeat((MiB - 4) / 4) + 'xx'
    expect(checkJson(emoji, MiB)).toEqual({ ok: true, bytes: new TextEncoder().encode(JSON.stringify(emoji)).length })
  })

  it('stops at the depth limit without walking 10,000 levels', () => {
    let deep: unknown = 0
    for (let i = 0; i < 10_000; i++) deep = { d: deep }
    expect(checkJson(deep, MiB, 64)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_DEEP' })
  })

  it('bounds the values walked, not only the bytes: 349,000 empty objects fit in 1 MiB and are refused', () => {
    // (No deadline here: the count is what is checked, on a machine of any speed.)
    const untimed = { deadline: Infinity }
    const objects = Array.from({ length: 349_000 }, () => ({}))
    expect(new TextEncoder().encode(JSON.stringify(objects)).length).toBeLessThan(MiB)
    expect(checkJson(objects, MiB, 64, untimed)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE', reason: 'more than 32768 values' })
    expect(checkJson({ a: objects }, MiB, 64, untimed)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE', path: '$.a' })
    expect(checkJson(new Array(500_000).fill(0), MiB, 64, untimed)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
    expect(checkJson(new Array(32_767).fill(0), MiB, 64, untimed)).toEqual({ ok: true, bytes: 65_535 }) // the array and its 32,767 values
    expect(checkJson(new Array(32_768).fill(0), MiB, 64, untimed)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
    expect(checkJson(Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, 0])), MiB, 64, untimed)).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' })
  })

  it('has a deadline like validation, read only past the first 1,024 values', () => {
    const past = performance.now() - 1
    expect(checkJson(new Array(1_022).fill(0), MiB, 64, { deadline: past })).toMatchObject({ ok: true })
    expect(checkJson(new Array(5_000).fill(0), MiB, 64, { deadline: past })).toMatchObject({ ok: false, code: 'VALIDATION_BUDGET' })
    expect(checkJson(new Array(5_000).fill(0), MiB, 64, { deadline: Infinity })).toMatchObject({ ok: true })
  })

  it('stringBytes agrees with TextEncoder on escapes and surrogates', () => {
    for (const s of ['', 'a', '"', '\u2028', '😀', '\udc00', '\b\f\r']) {
      expect(stringBytes(s)).toBe(new TextEncoder().encode(JSON.stringify(s)).length)
    }
  })
})
