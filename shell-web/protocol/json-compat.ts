/**
 * Is a value (as received after structured clone) plain JSON? One walk checks
 * the shape and counts the exact UTF-8 size of its JSON text, stopping early at
 * the first problem or once the byte budget is spent.
 *
 * Rejected: cycles, class instances (Date, Map, Set, RegExp, Error, boxed
 * primitives, typed arrays, ArrayBuffer, Blob…), `undefined` (including array
 * holes), non-finite numbers, functions, symbols and bigints.
 *
 * @example
 * const verdict = checkJson(payload, LIMITS.maxPayloadBytes)
 * if (!verdict.ok) return fail(verdict.code, `${verdict.path}: ${verdict.reason}`)
 */
export type JsonVerdict =
  | { ok: true; bytes: number }
  | { ok: false; code: 'NOT_JSON_COMPATIBLE' | 'PAYLOAD_TOO_LARGE' | 'PAYLOAD_TOO_DEEP'; path: string; reason: string }

class Stop {
  constructor(
    readonly code: 'NOT_JSON_COMPATIBLE' | 'PAYLOAD_TOO_LARGE' | 'PAYLOAD_TOO_DEEP',
    readonly reason: string,
  ) {}
}

export function checkJson(value: unknown, maxBytes: number, maxDepth = 64): JsonVerdict {
  const path: (string | number)[] = []
  const ancestors = new Set<object>()
  let bytes = 0

  const add = (n: number) => {
    bytes += n
    if (bytes > maxBytes) throw new Stop('PAYLOAD_TOO_LARGE', `larger than ${maxBytes} bytes`)
  }

  const walk = (v: unknown, depth: number): void => {
    switch (typeof v) {
      case 'string':
        return add(stringBytes(v))
      case 'number':
        if (!Number.isFinite(v)) throw new Stop('NOT_JSON_COMPATIBLE', `non-finite number ${v}`)
        return add(String(v).length)
      case 'boolean':
        return add(v ? 4 : 5)
      case 'object':
        break
      default:
        throw new Stop('NOT_JSON_COMPATIBLE', `${typeof v} is not JSON`)
    }
    if (v === null) return add(4)
    if (depth >= maxDepth) throw new Stop('PAYLOAD_TOO_DEEP', `nested deeper than ${maxDepth}`)
    if (ancestors.has(v)) throw new Stop('NOT_JSON_COMPATIBLE', 'cyclic reference')
    ancestors.add(v)
    if (Array.isArray(v)) {
      add(2 + Math.max(0, v.length - 1))
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i]
        path.push(i)
        if (item === undefined) throw new Stop('NOT_JSON_COMPATIBLE', 'undefined (or an array hole)')
        walk(item, depth + 1)
        path.pop()
      }
    } else {
      const proto: unknown = Object.getPrototypeOf(v)
      if (proto !== Object.prototype && proto !== null) {
        throw new Stop('NOT_JSON_COMPATIBLE', `class instance ${className(v)}`)
      }
      const keys = Object.keys(v)
      add(2 + Math.max(0, keys.length - 1))
      for (const key of keys) {
        const item: unknown = (v as Record<string, unknown>)[key]
        path.push(key)
        if (item === undefined) throw new Stop('NOT_JSON_COMPATIBLE', 'undefined')
        add(stringBytes(key) + 1)
        walk(item, depth + 1)
        path.pop()
      }
    }
    ancestors.delete(v)
  }

  try {
    walk(value, 0)
    return { ok: true, bytes }
  } catch (error) {
    if (!(error instanceof Stop)) throw error
    return { ok: false, code: error.code, path: formatPath(path), reason: error.reason }
  }
}

/** UTF-8 length of `JSON.stringify(s)`, quotes and escapes included. */
export function stringBytes(s: string): number {
  let n = 2
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += c === 0x22 || c === 0x5c ? 2 : c < 0x20 ? (c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6) : 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) (n += 4), i++
    else if (c >= 0xd800 && c <= 0xdfff) n += 6 // lone surrogate: JSON.stringify escapes it
    else n += 3
  }
  return n
}

function className(v: object): string {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && name ? name : Object.prototype.toString.call(v)
}

function formatPath(path: (string | number)[]): string {
  return '$' + path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('')
}
