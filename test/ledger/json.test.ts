import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { NotJsonCompatibleError } from '../../objects/core/errors.ts'
import { assertJson, canonicalJson, utf8Length } from '../../objects/ledger/json.ts'

/** RFC 8785 Appendix B: IEEE-754 bit patterns and their canonical text. */
const NUMBERS: [string, string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
]

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8))
  view.setBigUint64(0, BigInt(`0x${hex}`))
  return view.getFloat64(0)
}

describe('canonicalJson (RFC 8785)', () => {
  it.each(NUMBERS)('formats the double %s as %s', (bits, text) => {
    expect(canonicalJson(fromBits(bits))).toBe(text)
  })

  it('reproduces the RFC 8785 §3.2.2 example byte for byte', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`
    expect(canonicalJson(JSON.parse(input))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    )
  })

  it('orders keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = JSON.parse(
      String.raw`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
    )
    // Compare text, not Object.keys: JS lists integer-like keys such as "1" first.
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']
    expect(canonicalJson(input)).toBe(`{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k])}`).join(',')}}`)
  })

  it('agrees with the reference implementation on generated values', () => {
    let seed = 42
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const value = (depth: number): unknown => {
      const pick = Math.floor(random() * (depth > 3 ? 4 : 6))
      if (pick === 0) return (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20)
      if (pick === 1) return String.fromCharCode(...Array.from({ length: 6 }, () => Math.floor(random() * 0xd7ff)))
      if (pick === 2) return random() > 0.5
      if (pick === 3) return null
      if (pick === 4) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [String(value(4)), value(depth + 1)]))
    }
    for (let i = 0; i < 500; i++) {
      const v = value(0)
      expect(canonicalJson(v)).toBe(canonicalize(v))
    }
  })
})

describe('JSON compatibility', () => {
  const cyclic: Record<string, unknown> = { a: 1 }
  cyclic.self = cyclic
  const cases: [string, unknown, string, string][] = [
    ['a cycle', cyclic, '$.self', 'cycle'],
    ['a Date', { when: new Date(0) }, '$.when', 'class instance (Date)'],
    ['a Map', { m: new Map() }, '$.m', 'class instance (Map)'],
    ['a typed array', { bytes: new Uint8Array(2) }, '$.bytes', 'typed array (Uint8Array)'],
    ['undefined', { u: undefined }, '$.u', 'undefined'],
    ['NaN', [1, Number.NaN], '$[1]', 'non-finite number NaN'],
    ['Infinity', { n: Number.POSITIVE_INFINITY }, '$.n', 'non-finite number Infinity'],
    ['a function', { f: () => 1 }, '$.f', 'function'],
    ['a bigint', { b: 1n }, '$.b', 'bigint'],
    ['a lone surrogate', { s: '\ud800' }, '$.s', 'lone surrogate in string'],
    ['a sparse array', [1, , 3], '$[1]', 'hole in sparse array'],
  ]

  it.each(cases)('rejects %s with NOT_JSON_COMPATIBLE and its path', (_, value, path, reason) => {
    let caught: unknown
    try {
      assertJson(value)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(NotJsonCompatibleError)
    expect((caught as NotJsonCompatibleError).code).toBe('NOT_JSON_COMPATIBLE')
    expect((caught as NotJsonCompatibleError).details).toEqual({ path, reason })
  })

  it('accepts shared (non-cyclic) references and null-prototype objects', () => {
    const shared = { x: 1 }
    const bare = Object.assign(Object.create(null), { k: 'v' })
    expect(canonicalJson({ a: shared, b: shared, c: bare })).toBe('{"a":{"x":1},"b":{"x":1},"c":{"k":"v"}}')
  })

  it('counts UTF-8 bytes like TextEncoder', () => {
    for (const text of ['', 'ascii', 'é', '€', '😀', 'a€😀é']) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).byteLength)
    }
  })

  it('counts long strings like TextEncoder, across its 64 KiB windows and with pairs on their edges', () => {
    const texts = [
      'a'.repeat(300),
      'a€😀é'.repeat(20_000),
      // A four-byte pair straddling each window edge, at every offset around it.
      ...[0, 1, 2, 3].map((shift) => 'a'.repeat(64 * 1024 - 2 + shift) + '😀'.repeat(3) + 'é'.repeat(40_000)),
      '€'.repeat(100_000),
    ]
    for (const text of texts) expect(utf8Length(text)).toBe(new TextEncoder().encode(text).byteLength)
  })
})
