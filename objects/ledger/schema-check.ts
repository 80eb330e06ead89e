/**
 * What a schema must be to be registered: small, shallow, its core keywords'
 * values well formed (a `type` the standard names, `required` a list of
 * strings, ...), every `pattern` and `patternProperties` name a regex that
 * the linear-time engine accepts (pattern.ts: ECMA-262 that RE2 runs with the
 * same meaning; lookaround and backreferences are refused), and every `$ref`
 * resolvable within the schema. A schema that passes can be
 * used by every later append; one that does not is refused with
 * `INVALID_SCHEMA`, so no append can ever name a broken schema.
 */
import { dereference, schemaArrayKeyword, schemaKeyword, schemaMapKeyword } from '@cfworker/json-schema'
import { NeuronError } from '../core/errors.ts'
import { MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_PATTERN_COST } from '../core/limits.ts'
import { canonicalJson, type Json, utf8Length } from './json.ts'
import { patternCost, patternRefusal } from './pattern.ts'

type Schema = Record<string, unknown>

/**
 * Throws `INVALID_SCHEMA` (400) with `details: { path, reason }` unless `schema` can be registered.
 * `text` is its canonical JSON, already computed by the caller.
 *
 * @example
 * checkSchema({ type: 'string', pattern: '^(a)\\1$' }, '…') // throws INVALID_SCHEMA (a backreference)
 */
export function checkSchema(schema: Schema, text: string): void {
  const bytes = utf8Length(text)
  if (bytes > MAX_SCHEMA_BYTES) refuse('$', `the schema is ${bytes} bytes; the limit is ${MAX_SCHEMA_BYTES}`)
  // dereference annotates the schema it is given, so it works on a copy.
  const copy = JSON.parse(text) as Schema
  let lookup: Record<string, unknown>
  try {
    lookup = dereference(copy as never) as Record<string, unknown>
  } catch (error) {
    refuse('$', `the schema cannot be read: ${(error as Error).message}`)
  }
  // Counted before any is compiled: the budget bounds the time the walk below can take.
  const cost = schemaPatternCost(copy)
  if (cost > MAX_SCHEMA_PATTERN_COST) refuse('$', `the schema's patterns cost ${cost} to compile; the limit is ${MAX_SCHEMA_PATTERN_COST} (see MAX_SCHEMA_PATTERN_COST)`)
  walk(copy, '$', 1, lookup)
}

/**
 * `checkSchema` for a schema inside a larger document (an app's method, an uploaded tool): the
 * same `INVALID_SCHEMA`, its message led by `at` and its details joined by `where`.
 *
 * @example
 * checkSchemaAt({ type: 'nope' }, 'tools[0].input', { tool: 'forecast', side: 'input' }) // throws INVALID_SCHEMA, details.tool 'forecast'
 */
export function checkSchemaAt(schema: Schema, at: string, where: Record<string, string>): void {
  try {
    checkSchema(schema, canonicalJson(schema as Json))
  } catch (error) {
    if (!(error instanceof NeuronError)) throw error
    throw new NeuronError('INVALID_SCHEMA', `${at}: ${error.message}`, { status: 400, details: { ...where, ...(error.details as object) }, cause: error })
  }
}

/**
 * What compiling every `pattern` and `patternProperties` name in `schema` costs (pattern.ts's
 * `patternCost`, summed), without compiling any; subschemas past `MAX_SCHEMA_DEPTH` are not counted.
 *
 * @example
 * schemaPatternCost({ properties: { a: { pattern: '^a+$' } } }) // 4
 */
export function schemaPatternCost(schema: unknown, depth = 1): number {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > MAX_SCHEMA_DEPTH) return 0
  const node = schema as Schema
  let cost = typeof node.pattern === 'string' ? patternCost(node.pattern) : 0
  for (const [key, value] of Object.entries(node)) {
    if (key in schemaKeyword && !Array.isArray(value)) cost += schemaPatternCost(value, depth + 1)
    else if ((key in schemaArrayKeyword || key === 'items') && Array.isArray(value)) for (const sub of value) cost += schemaPatternCost(sub, depth + 1)
    else if (key in schemaMapKeyword && typeof value === 'object' && value !== null) {
      for (const [name, sub] of Object.entries(value)) cost += (key === 'patternProperties' ? patternCost(name) : 0) + schemaPatternCost(sub, depth + 1)
    }
  }
  return cost
}

function walk(schema: unknown, path: string, depth: number, lookup: Record<string, unknown>): void {
  if (typeof schema === 'boolean') return
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) refuse(path, 'a subschema must be an object or a boolean')
  if (depth > MAX_SCHEMA_DEPTH) refuse(path, `subschemas nest deeper than ${MAX_SCHEMA_DEPTH}`)
  const node = schema as Schema
  checkValues(node, path)
  if (node.pattern !== undefined) checkPattern(node.pattern, `${path}.pattern`)
  if (node.$ref !== undefined) {
    const target = (node.__absolute_ref__ as string | undefined) ?? String(node.$ref)
    if (!(target in lookup)) refuse(`${path}.$ref`, `$ref ${JSON.stringify(node.$ref)} does not resolve within the schema`)
  }
  for (const [key, value] of Object.entries(node)) {
    if (key in schemaKeyword && !(key === 'items' && Array.isArray(value))) walk(value, `${path}.${key}`, depth + 1, lookup)
    else if (key in schemaArrayKeyword && Array.isArray(value)) value.forEach((sub, i) => walk(sub, `${path}.${key}[${i}]`, depth + 1, lookup))
    else if (key in schemaMapKeyword && typeof value === 'object' && value !== null) {
      for (const [name, sub] of Object.entries(value)) {
        if (key === 'patternProperties') checkPattern(name, `${path}.patternProperties`)
        walk(sub, `${path}.${key}.${name}`, depth + 1, lookup)
      }
    }
  }
}

const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains']
const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']

/**
 * The core keywords' values have the shapes the 2020-12 meta-schema gives them. The validator
 * ignores a misspelt `type` and the like, so without this such a schema would pass here and be
 * refused later by whoever reads it (a model vendor refuses a tool's malformed schema outright).
 */
function checkValues(node: Schema, path: string): void {
  if (node.type !== undefined) {
    const types = Array.isArray(node.type) ? node.type : [node.type]
    const known = types.length > 0 && types.every((t) => typeof t === 'string' && TYPES.includes(t)) && new Set(types).size === types.length
    if (!known) refuse(`${path}.type`, `type must be one of ${TYPES.join(', ')}, or a non-empty array of distinct ones`)
  }
  const required = node.required
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === 'string') && new Set(required).size === required.length)) {
    refuse(`${path}.required`, 'required must be an array of distinct strings')
  }
  if (node.enum !== undefined && !Array.isArray(node.enum)) refuse(`${path}.enum`, 'enum must be an array')
  for (const key of COUNTS) {
    if (node[key] !== undefined && !(Number.isInteger(node[key]) && (node[key] as number) >= 0)) refuse(`${path}.${key}`, `${key} must be a non-negative integer`)
  }
  for (const key of BOUNDS) if (node[key] !== undefined && typeof node[key] !== 'number') refuse(`${path}.${key}`, `${key} must be a number`)
  if (node.multipleOf !== undefined && !(typeof node.multipleOf === 'number' && node.multipleOf > 0)) refuse(`${path}.multipleOf`, 'multipleOf must be a number above 0')
  for (const key of LISTS) {
    if (node[key] !== undefined && !(Array.isArray(node[key]) && (node[key] as unknown[]).length > 0)) refuse(`${path}.${key}`, `${key} must be a non-empty array of schemas`)
  }
  for (const key of MAPS) {
    const value = node[key]
    if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) refuse(`${path}.${key}`, `${key} must be an object of schemas`)
  }
}

/** Compiles the pattern the way the validator will run it (validator.ts), or refuses it. */
function checkPattern(pattern: unknown, path: string): void {
  if (typeof pattern !== 'string') refuse(path, 'a pattern must be a string')
  const refusal = patternRefusal(pattern)
  if (refusal) refuse(path, `the pattern ${JSON.stringify(pattern.slice(0, 200))} is refused: ${refusal}`)
}

function refuse(path: string, reason: string): never {
  throw new NeuronError('INVALID_SCHEMA', `schema refused at ${path}: ${reason}`, { status: 400, details: { path, reason } })
}
