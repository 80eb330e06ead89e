/**
 * Is a value (as received after structured clone) plain JSON, and how many
 * bytes is its JSON text? One walk checks the shape and counts the exact UTF-8
 * size, stopping early at the first problem or once a budget is spent: the
 * bytes, the nesting, the number of values (`LIMITS.maxPayloadNodes`: a payload
 * under 1 MiB can hold 349,000 empty objects, each costly to walk and to read),
 * and, like schema validation, a deadline read every 1,024 values
 * (`LIMITS.maxValidationMs`, a backstop for a slow machine: VALIDATION_BUDGET).
 *
 * The check is about what structured clone actually delivers. For a plain
 * object that is its own enumerable string-keyed data properties, exactly what
 * `Object.keys` lists and `JSON.stringify` prints (symbol keys and
 * non-enumerable properties are not cloned, getters are read into data). For
 * an array it is every own enumerable property, named ones included, which JSON
 * cannot express — so an array is JSON only if its own keys are exactly its
 * indices. Once a value passes, the received object *is* its JSON, so the
 * kernel forwards it as is (a re-serialized copy would cost as much again).
 *
 * Rejected: cycles; objects whose prototype is not `Object.prototype`/`null`
 * and arrays whose prototype is not `Array.prototype` (Date, Map, Set, RegExp,
 * Error, boxed primitives, typed arrays, ArrayBuffer, Blob, class instances);
 * arrays with holes or with any own key besides their indices; `undefined`;
 * non-finite numbers; functions, symbols and bigints.
 *
 * @example
 * const verdict = checkJson(payload, LIMITS.maxPayloadBytes)
 * if (!verdict.ok) return fail(verdict.code, `${verdict.path}: ${verdict.reason}`)
 */
import { type BusErrorShape, fail } from './codes.ts'
import { LIMITS } from './limits.ts'

export type JsonVerdict =
  | { ok: true; bytes: number }
  | { ok: false; code: JsonRefusal; path: string; reason: string }

export type JsonRefusal = 'NOT_JSON_COMPATIBLE' | 'PAYLOAD_TOO_LARGE' | 'PAYLOAD_TOO_DEEP' | 'VALIDATION_BUDGET'

/** The walk's budget besides bytes and depth: values, and a `performance.now()` deadline. */
export interface JsonBudget {
  nodes?: number
  deadline?: number
}

/** Values walked before the clock is first read: a small payload always gets its verdict. */
const UNTIMED_NODES = 1_024

class Stop {
  constructor(
    readonly code: JsonRefusal,
    readonly reason: string,
  ) {}
}

export function checkJson(value: unknown, maxBytes: number, maxDepth = 64, budget: JsonBudget = {}): JsonVerdict {
  const path: (string | number)[] = []
  // The containers being walked, by depth: a cycle is an ancestor met again. (A stack scanned up
  // to the depth limit costs less than a Set churning through every container of a big payload.)
  const ancestors: object[] = []
  let bytes = 0
  let nodes = 0
  const maxNodes = budget.nodes ?? LIMITS.maxPayloadNodes
  const deadline = budget.deadline ?? performance.now() + LIMITS.maxValidationMs

  const add = (n: number) => {
    bytes += n
    if (bytes > maxBytes) throw new Stop('PAYLOAD_TOO_LARGE', `larger than ${maxBytes} bytes`)
  }
  const notJson = (reason: string) => new Stop('NOT_JSON_COMPATIBLE', reason)

  const walk = (v: unknown, depth: number): void => {
    if (++nodes > maxNodes) throw new Stop('PAYLOAD_TOO_LARGE', `more than ${maxNodes} values`)
    if ((nodes & (UNTIMED_NODES - 1)) === 0 && performance.now() > deadline) throw new Stop('VALIDATION_BUDGET', `checking it ran past its time budget after ${nodes} values`)
    switch (typeof v) {
      case 'string':
        return add(stringBytes(v))
      case 'number':
        if (!Number.isFinite(v)) throw notJson(`non-finite number ${v}`)
        return add(String(v).length)
      case 'boolean':
        return add(v ? 4 : 5)
      case 'object':
        break
      default:
        throw notJson(`${typeof v} is not JSON`)
    }
    if (v === null) return add(4)
    if (depth >= maxDepth) throw new Stop('PAYLOAD_TOO_DEEP', `nested deeper than ${maxDepth}`)
    for (let i = 0; i < depth; i++) if (ancestors[i] === v) throw notJson('cyclic reference')
    ancestors[depth] = v
    const proto: unknown = Object.getPrototypeOf(v)
    if (Array.isArray(v)) {
      if (proto !== Array.prototype) throw notJson(`class instance ${className(v)}`)
      const length = v.length
      add(2 + Math.max(0, length - 1)) // before listing keys: a huge length stops here
      if (length > maxNodes - nodes) throw new Stop('PAYLOAD_TOO_LARGE', `more than ${maxNodes} values`) // every element is one
      // An array is JSON only if its own keys are exactly its indices: as many enumerable keys
      // as its length, none of them a hole (checked below), so none of them a name.
      // (Object.keys lists what structured clone delivers, and costs a fifth of Reflect.ownKeys.)
      if (Object.keys(v).length !== length) throw notJson('an array with holes or properties besides its indices')
      for (let i = 0; i < length; i++) {
        path.push(i)
        const item: unknown = v[i]
        if (item === undefined) throw notJson('undefined (or an array hole)')
        walk(item, depth + 1)
        path.pop()
      }
    } else {
      if (proto !== Object.prototype && proto !== null) throw notJson(`class instance ${className(v)}`)
      let count = 0
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        path.push(key)
        add(stringBytes(key) + 2) // "key": and a comma (one too many, taken back below)
        count++
        const item: unknown = (v as Record<string, unknown>)[key]
        if (item === undefined) throw notJson('undefined')
        walk(item, depth + 1)
        path.pop()
      }
      add(count ? 1 : 2) // the braces, less the one comma too many
    }
  }

  try {
    walk(value, 0)
    return { ok: true, bytes }
  } catch (error) {
    if (!(error instanceof Stop)) {
      // A getter or proxy trap threw (only possible before structured clone, in the SDK).
      return { ok: false, code: 'NOT_JSON_COMPATIBLE', path: formatPath(path), reason: 'reading the value threw' }
    }
    return { ok: false, code: error.code, path: formatPath(path), reason: error.reason }
  }
}

/**
 * A failed verdict as the refusal the bus answers with (a time budget spent carries a retry hint).
 *
 * @example
 * if (!verdict.ok) return reply(jsonRefusal(verdict, 'result ')) // { code: 'PAYLOAD_TOO_LARGE', message: 'result $.a: more than 32768 values' }
 */
export function jsonRefusal(verdict: Extract<JsonVerdict, { ok: false }>, prefix = ''): BusErrorShape {
  const message = `${prefix}${verdict.path}: ${verdict.reason}`
  return verdict.code === 'VALIDATION_BUDGET' ? fail(verdict.code, message, LIMITS.retryAfterMs) : fail(verdict.code, message)
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
  try {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name
    return typeof name === 'string' && name ? name : Object.prototype.toString.call(v)
  } catch {
    return 'object'
  }
}

function formatPath(path: (string | number)[]): string {
  return '$' + path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('')
}
