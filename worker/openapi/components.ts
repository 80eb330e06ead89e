/**
 * Shared schemas of the OpenAPI document. A JSON Schema generated on its own keeps what it
 * shares or what recurses (a JSON value, say) under its own `$defs`, and refers to it as
 * `#/$defs/…`. Inside an OpenAPI document such a reference resolves against the document's
 * root, where nothing is: the whole document fails validation. So every generated schema's
 * `$defs` move here, into `components.schemas`, and its references are rewritten to point there.
 * A repeated group of definitions (every schema holding a JSON value repeats one) is stored
 * once; a name another group took gets a numbered suffix.
 */
import { canonicalJson } from '../../objects/ledger/json.ts'

type Schema = Record<string, unknown>

/**
 * @example
 * const components = new Components({ Error: ErrorBody })
 * const body = components.adopt(z.toJSONSchema(NodeBody)) // refs now '#/components/schemas/…'
 * doc.components.schemas = components.schemas
 */
export class Components {
  readonly schemas: Record<string, Schema>
  /** Component names by the canonical text of the `$defs` they came from, so a repeated group is stored once. */
  private readonly groups = new Map<string, Map<string, string>>()

  constructor(initial: Record<string, Schema> = {}) {
    this.schemas = { ...initial }
  }

  /** `schema` without its `$defs`, which are added here; every `#/$defs/x` it holds points at its component. */
  adopt(schema: Schema): Schema {
    const { $defs, ...rest } = schema as Schema & { $defs?: Record<string, Schema> }
    if (!$defs) return rest
    // A group is reused whole: its definitions may refer to each other by their local names.
    const key = canonicalJson($defs)
    let names = this.groups.get(key)
    if (!names) {
      names = new Map(Object.keys($defs).map((name) => [name, this.freeName(name)]))
      for (const [name, definition] of Object.entries($defs)) this.schemas[names.get(name)!] = rewrite(definition, names) as Schema
      this.groups.set(key, names)
    }
    return rewrite(rest, names) as Schema
  }

  /** A component name not yet taken, from a definition's local name (`__schema0` → `schema0`). */
  private freeName(name: string): string {
    const base = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^_+/, '') || 'schema'
    let candidate = base
    for (let n = 2; candidate in this.schemas; n++) candidate = `${base}${n}`
    // Taken at once, so two definitions of one group never get the same name.
    this.schemas[candidate] = {}
    return candidate
  }
}

function rewrite(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, names))
  if (value === null || typeof value !== 'object') return value
  const out: Schema = {}
  for (const [key, item] of Object.entries(value)) {
    const local = key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/') ? item.slice('#/$defs/'.length) : null
    out[key] = local !== null ? `#/components/schemas/${names.get(local) ?? local}` : rewrite(item, names)
  }
  return out
}
