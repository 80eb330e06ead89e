/**
 * Tool schemas: JSON Schema 2020-12, checked before use and validated with
 * @cfworker/json-schema (no eval). Because the kernel validates untrusted
 * schemas on the trusted page, a schema must be cheap to evaluate:
 * bounded size, depth and $ref-expanded node count, local JSON-pointer $refs
 * only (no remote or recursive refs, no $id / $dynamicRef), no regular
 * expressions (`pattern`, `patternProperties`: ReDoS), no `uniqueItems`
 * (quadratic), and only formats with linear-time checks. A schema that passes
 * can still cost schema size × payload size (say, an `items` that is an
 * `anyOf` of 2,000 alternatives), so two more bounds apply: at checking, a
 * combinator (`anyOf`/`oneOf`/`allOf`) has at most 64 alternatives and a
 * subschema applied to every element or property (`items`,
 * `additionalProperties`, …) at most 256 nodes; at validating, every call
 * has a work budget — schema-node evaluations and a deadline — and fails with
 * VALIDATION_BUDGET when it is spent, so no payload keeps the trusted page busy.
 *
 * @example
 * const issue = checkSchema({ type: 'object', properties: { query: { type: 'string' } } })
 * if (issue) throw new Error(issue)
 * const validate = compileSchema(schema)
 * validate({ query: 'roadmap' }) // null when valid, else { code, reason }
 */
import { Validator } from '@cfworker/json-schema'
import { checkJson } from './json-compat.ts'
import { LIMITS } from './limits.ts'

/** Keywords whose subschema is applied to every element or property: its cost multiplies. */
const REPEATED = new Set(['additionalProperties', 'unevaluatedProperties', 'propertyNames', 'contains', 'items', 'unevaluatedItems'])
const SINGLE = ['additionalProperties', 'unevaluatedProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else', 'items', 'unevaluatedItems', 'contentSchema']
const LISTS = ['prefixItems', 'allOf', 'anyOf', 'oneOf']
const MAPS = ['properties', '$defs', 'definitions', 'dependentSchemas']
const FORBIDDEN: Record<string, string> = {
  pattern: 'regular expressions are not evaluated by the kernel (ReDoS)',
  patternProperties: 'regular expressions are not evaluated by the kernel (ReDoS)',
  uniqueItems: 'uniqueItems is quadratic in the array length',
  $id: 'schemas may not declare $id',
  $dynamicRef: '$dynamicRef is not supported',
  $dynamicAnchor: '$dynamicAnchor is not supported',
  $recursiveRef: '$recursiveRef is not supported',
  $anchor: 'use JSON-pointer $refs instead of anchors',
  additionalItems: 'use prefixItems/items (2020-12)',
  dependencies: 'use dependentSchemas/dependentRequired (2020-12)',
}
const FORMATS = new Set(['date', 'time', 'date-time', 'email', 'hostname', 'ipv4', 'uuid'])
const DRAFT = 'https://json-schema.org/draft/2020-12/schema'

/** Returns null for an acceptable schema, else the reason it is refused. */
export function checkSchema(schema: unknown): string | null {
  // 64 KiB bound this walk; the message carrying the schema was already checked under the kernel's deadline.
  const json = checkJson(schema, LIMITS.maxSchemaBytes, LIMITS.maxSchemaDepth, { deadline: Infinity })
  if (!json.ok) return `${json.path}: ${json.reason}`
  if (typeof schema === 'boolean') return null
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'a schema is an object or a boolean'
  const root = schema as Record<string, unknown>
  if (root.$schema !== undefined && root.$schema !== DRAFT) return `$schema must be ${DRAFT}`
  let nodes = 0
  const expanding: string[] = []

  const visit = (node: unknown, where: string): string | null => {
    if (typeof node === 'boolean') return null
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return `${where}: a subschema is an object or a boolean`
    if (++nodes > LIMITS.maxSchemaNodes) return `more than ${LIMITS.maxSchemaNodes} schema nodes once $refs are expanded`
    const s = node as Record<string, unknown>
    for (const key of Object.keys(FORBIDDEN)) if (key in s) return `${where}/${key}: ${FORBIDDEN[key]}`
    if (s.$schema !== undefined && s !== root) return `${where}/$schema: only at the root`
    if (s.format !== undefined && !FORMATS.has(String(s.format))) return `${where}/format: "${String(s.format)}" is not one of ${[...FORMATS].join(', ')}`
    if (s.$ref !== undefined) {
      const ref = s.$ref
      if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) return `${where}/$ref: only local JSON-pointer refs ("#/…") are allowed`
      if (expanding.includes(ref)) return `${where}/$ref: recursive reference ${ref}`
      const target = resolvePointer(root, ref)
      if (target === undefined) return `${where}/$ref: ${ref} does not resolve`
      expanding.push(ref)
      const issue = visit(target, ref)
      expanding.pop()
      if (issue) return issue
    }
    for (const key of SINGLE) if (key in s) {
      const before = nodes
      const issue = visit(s[key], `${where}/${key}`)
      if (issue) return issue
      if (REPEATED.has(key) && nodes - before > LIMITS.maxRepeatedSchemaNodes) {
        return `${where}/${key}: applied to every element, so at most ${LIMITS.maxRepeatedSchemaNodes} schema nodes (has ${nodes - before})`
      }
    }
    for (const key of LISTS) if (key in s) {
      const list = s[key]
      if (!Array.isArray(list)) return `${where}/${key}: must be an array`
      if (key !== 'prefixItems' && list.length > LIMITS.maxSchemaAlternatives) return `${where}/${key}: at most ${LIMITS.maxSchemaAlternatives} alternatives`
      for (let i = 0; i < list.length; i++) {
        const issue = visit(list[i], `${where}/${key}/${i}`)
        if (issue) return issue
      }
    }
    for (const key of MAPS) if (key in s) {
      const map = s[key]
      if (typeof map !== 'object' || map === null || Array.isArray(map)) return `${where}/${key}: must be an object`
      for (const [name, sub] of Object.entries(map)) {
        const issue = visit(sub, `${where}/${key}/${name}`)
        if (issue) return issue
      }
    }
    return null
  }
  return visit(schema, '#')
}

/** A validation verdict: null when valid. */
export type SchemaVerdict = null | { code: 'SCHEMA_VIOLATION' | 'VALIDATION_BUDGET'; reason: string }

/** One call's validation budget: schema-node evaluations, and a `performance.now()` deadline. */
export interface ValidationBudget {
  steps?: number
  deadline?: number
}

const SPENT = Symbol('validation budget spent')
const UNTIMED_STEPS = 64

/**
 * Compiles a checked schema into `(value, budget?) → verdict`. Never throws.
 * Each evaluation of a schema node costs one step; past `budget.steps`
 * (default {@link LIMITS.maxValidationSteps}), or past `budget.deadline`
 * (default {@link LIMITS.maxValidationMs} from now) once it has taken more than
 * 64 steps, validation stops with VALIDATION_BUDGET.
 */
export function compileSchema(schema: unknown): (value: unknown, budget?: ValidationBudget) => SchemaVerdict {
  const clone = countable(structuredClone(schema))
  const validator = new Validator(clone as object, '2020-12', true)
  let steps = 0
  let maxSteps = 0
  let deadline = 0
  // The clock is read only past the first steps: a small validation always gets its verdict, even
  // on a machine that stalls; the deadline is a backstop for long ones whose steps are slow.
  const tick = () => {
    if (++steps > maxSteps || (steps > UNTIMED_STEPS && performance.now() > deadline)) throw SPENT
  }
  // The validator reads `$recursiveRef` once each time it evaluates a schema node (the kernel
  // never accepts that keyword), so a getter there counts the work as it happens.
  forEachNode(clone, (node) => Object.defineProperty(node, '$recursiveRef', { get: () => void tick(), enumerable: false, configurable: true }))
  return (value, budget = {}) => {
    steps = 0
    maxSteps = budget.steps ?? LIMITS.maxValidationSteps
    deadline = budget.deadline ?? performance.now() + LIMITS.maxValidationMs
    try {
      const result = validator.validate(value)
      if (result.valid) return null
      const first = result.errors.find((e) => e.keyword !== 'properties' && e.keyword !== '$ref') ?? result.errors[0]
      return { code: 'SCHEMA_VIOLATION', reason: first ? `${first.instanceLocation}: ${first.error}`.slice(0, 300) : 'invalid' }
    } catch (error) {
      if (error === SPENT) return { code: 'VALIDATION_BUDGET', reason: steps > maxSteps ? `validation needs more than ${maxSteps} schema steps` : `validation ran past its time budget after ${steps} schema steps` }
      return { code: 'SCHEMA_VIOLATION', reason: `schema could not be evaluated: ${String(error).slice(0, 200)}` }
    }
  }
}

/** Boolean subschemas become objects (`true` ≡ `{}`, `false` ≡ `{ not: {} }`) so that they count too. */
function countable(node: unknown): unknown {
  if (node === true) return {}
  if (node === false) return { not: {} }
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
  const s = node as Record<string, unknown>
  for (const key of SINGLE) if (key in s) s[key] = countable(s[key])
  for (const key of LISTS) if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map(countable)
  for (const key of MAPS) if (s[key] && typeof s[key] === 'object') for (const name of Object.keys(s[key] as object)) (s[key] as Record<string, unknown>)[name] = countable((s[key] as Record<string, unknown>)[name])
  return s
}

function forEachNode(node: unknown, fn: (node: object) => void): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return
  const s = node as Record<string, unknown>
  fn(s)
  for (const key of SINGLE) if (key in s) forEachNode(s[key], fn)
  for (const key of LISTS) if (Array.isArray(s[key])) for (const sub of s[key] as unknown[]) forEachNode(sub, fn)
  for (const key of MAPS) if (s[key] && typeof s[key] === 'object') for (const sub of Object.values(s[key] as object)) forEachNode(sub, fn)
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    let part: string
    try {
      part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    } catch {
      return undefined
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return node
}
