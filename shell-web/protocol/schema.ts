/**
 * Tool schemas: JSON Schema 2020-12, checked before use and validated with
 * @cfworker/json-schema (no eval). Because the kernel validates untrusted
 * schemas on the trusted page, a schema must be cheap to evaluate:
 * bounded size, depth and $ref-expanded node count, local JSON-pointer $refs
 * only (no remote or recursive refs, no $id / $dynamicRef), no regular
 * expressions (`pattern`, `patternProperties`: ReDoS), no `uniqueItems`
 * (quadratic), and only formats with linear-time checks.
 *
 * @example
 * const issue = checkSchema({ type: 'object', properties: { query: { type: 'string' } } })
 * if (issue) throw new Error(issue)
 * const validate = compileSchema(schema)
 * validate({ query: 'roadmap' }) // null when valid, else a short reason
 */
import { Validator } from '@cfworker/json-schema'
import { checkJson } from './json-compat.ts'
import { LIMITS } from './limits.ts'

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
  const json = checkJson(schema, LIMITS.maxSchemaBytes, LIMITS.maxSchemaDepth)
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
      const issue = visit(s[key], `${where}/${key}`)
      if (issue) return issue
    }
    for (const key of LISTS) if (key in s) {
      const list = s[key]
      if (!Array.isArray(list)) return `${where}/${key}: must be an array`
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

/** Compiles a checked schema into `value → null | reason`. Never throws. */
export function compileSchema(schema: unknown): (value: unknown) => string | null {
  const validator = new Validator(structuredClone(schema) as object, '2020-12', true)
  return (value) => {
    try {
      const result = validator.validate(value)
      if (result.valid) return null
      const first = result.errors.find((e) => e.keyword !== 'properties' && e.keyword !== '$ref') ?? result.errors[0]
      return first ? `${first.instanceLocation}: ${first.error}`.slice(0, 300) : 'invalid'
    } catch (error) {
      return `schema could not be evaluated: ${String(error).slice(0, 200)}`
    }
  }
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
