/**
 * JSON-compatibility and RFC 8785 (JCS) canonical form, in one walk.
 *
 * Only plain objects, arrays, strings, finite numbers, booleans and null pass.
 * Cycles, class instances (Date, Map, ...), typed arrays, `undefined`, non-finite
 * numbers, functions, symbols, bigints and lone surrogates are rejected with
 * `NOT_JSON_COMPATIBLE` and the path of the offending value.
 */
import { NotJsonCompatibleError } from '../core/errors.ts'

/** A JSON value. Interfaces keep the recursion lazy, so RPC stub types stay shallow. */
export type Json = null | boolean | number | string | JsonArray | JsonObject
export interface JsonArray extends Array<Json> {}
export interface JsonObject {
  [key: string]: Json
}

/**
 * The RFC 8785 canonical form of `value`: keys sorted by UTF-16 code units,
 * ECMAScript number formatting, no insignificant whitespace.
 *
 * @example
 * canonicalJson({ b: 1, a: [1e21, 0.5] }) // '{"a":[1e+21,0.5],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$', [])
}

/** Throws `NotJsonCompatibleError` unless `value` is JSON-compatible; narrows it to `Json`. */
export function assertJson(value: unknown, path = '$'): asserts value is Json {
  write(value, path, [])
}

function write(value: unknown, path: string, stack: object[]): string {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw new NotJsonCompatibleError(path, 'lone surrogate in string')
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonCompatibleError(path, `non-finite number ${value}`)
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'object':
      if (value === null) return 'null'
      return writeObject(value, path, stack)
    default:
      throw new NotJsonCompatibleError(path, typeof value)
  }
}

function writeObject(value: object, path: string, stack: object[]): string {
  if (stack.includes(value)) throw new NotJsonCompatibleError(path, 'cycle')
  stack.push(value)
  let out: string
  if (Array.isArray(value)) {
    out = writeArray(value, path, stack)
  } else {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      throw new NotJsonCompatibleError(path, describeInstance(value))
    }
    const record = value as Record<string, unknown>
    const keys = Object.keys(record).sort()
    out = '{'
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      if (!key.isWellFormed()) throw new NotJsonCompatibleError(path, 'lone surrogate in key')
      out += (i === 0 ? '' : ',') + JSON.stringify(key) + ':' + write(record[key], `${path}.${key}`, stack)
    }
    out += '}'
  }
  stack.pop()
  return out
}

function writeArray(value: unknown[], path: string, stack: object[]): string {
  let out = '['
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) throw new NotJsonCompatibleError(`${path}[${i}]`, 'hole in sparse array')
    out += (i === 0 ? '' : ',') + write(value[i], `${path}[${i}]`, stack)
  }
  return out + ']'
}

function describeInstance(value: object): string {
  if (ArrayBuffer.isView(value)) return `typed array (${value.constructor.name})`
  const name = (value as { constructor?: { name?: string } }).constructor?.name
  return `class instance (${name || 'anonymous'})`
}

/** Below this many UTF-16 units a plain loop beats a call into the native encoder. */
const SHORT = 256
const encoder = new TextEncoder()
/** Where long strings are encoded to be counted, a window at a time (the bytes are thrown away). */
const scratch = new Uint8Array(64 * 1024)

/**
 * UTF-8 byte length of a string without allocating its encoding. Long strings (a turn's text is
 * tens of kilobytes, and every envelope's size is counted) go through the native encoder into a
 * fixed scratch window, ~40× faster in workerd than a loop over char codes.
 *
 * @example
 * utf8Length('a€😀') // 1 + 3 + 4 = 8
 */
export function utf8Length(text: string): number {
  if (text.length < SHORT) return loopLength(text)
  let bytes = 0
  // encodeInto stops before a code point that does not fit, so a pair is never split.
  for (let at = 0; at < text.length; ) {
    const { read, written } = encoder.encodeInto(at === 0 ? text : text.substring(at), scratch)
    bytes += written
    at += read
  }
  return bytes
}

function loopLength(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}
