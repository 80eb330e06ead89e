/**
 * An uploaded tool module: a principal's own JavaScript (an ES module whose default export is an
 * object of async functions, one per tool) and the declaration of its tools (name, description,
 * input and output JSON Schema), plus the origins its code may fetch. Its tools are offered to the
 * principal's sessions (toolset.ts); its code runs in its own isolate exactly as an app backend's
 * does (objects/apps/loader.ts, run.ts). An upload is immutable and content-addressed: its hash is
 * the SHA-256 of its canonical JSON.
 *
 * Checked here, before anything is stored (pure): the shape (`INVALID_MODULE`), sizes and counts
 * (`MODULE_TOO_LARGE`), tool names (`TOOL_NAME_DUPLICATE` within the module, `TOOL_NAME_TAKEN` for
 * a built-in's or the deployment's own tool), every schema (`INVALID_SCHEMA`, the ledger's schema
 * check: patterns on RE2) and every origin (`INVALID_ORIGIN`, `URL_REFUSED`: the outbound policy).
 * Whether the code is an ES module with those functions is checked by loading it (run.ts).
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { MAX_BACKEND_BYTES, MODULE_LIMITS } from '../core/limits.ts'
import { parseOrThrow } from '../core/validate.ts'
import { BUILTIN_TOOL_NAMES, TOOL_NAME } from '../extend/extensions.ts'
import { canonicalJson, type Json, utf8Length } from '../ledger/json.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { checkSchemaAt } from '../ledger/schema-check.ts'
import { checkOutboundUrl, type OutboundPolicy } from '../outbound/policy.ts'
import { originOf } from '../apps/grants.ts'
import { AppId, JsonSchemaObject, MethodSpec } from '../apps/package.ts'

/** One tool of a module: the name the model calls it by, what it is told, and the schemas every call is checked with. */
export const ToolDeclaration = z.strictObject({
  name: z.string().regex(TOOL_NAME, 'must be 1–64 of [A-Za-z0-9_-]'),
  description: z.string().min(1).max(4096),
  input: JsonSchemaObject,
  output: JsonSchemaObject,
  /** The call's own wall-clock deadline, at most the kernel's (30 s), as an app method's. */
  timeoutMs: MethodSpec.shape.timeoutMs,
})
export type ToolDeclaration = z.infer<typeof ToolDeclaration>

/** The body of `POST /v1/modules`: a new version of module `module`. */
export const ModuleUpload = z.strictObject({
  /** The module's id: a new upload under the same id is its next version. */
  module: AppId,
  /** An ES module: `export default { async forecast(input) { … } }`, a function per declared tool. */
  code: z.string().min(1),
  tools: z.array(ToolDeclaration).min(1),
  /** The http(s) origins its code may fetch (the uploader's grant, by uploading it); none by default. */
  origins: z.array(z.string().min(1).max(2048)).default([]),
})
export type ModuleUpload = z.infer<typeof ModuleUpload>

/** A checked upload: its content id, its canonical text (what is stored), and the upload with its origins normalized. */
export interface CheckedModule {
  hash: string
  text: string
  upload: ModuleUpload
}

/** A module's version as listed and offered: everything but its code. */
export interface ModuleVersion {
  module: string
  /** 1 for the first upload of this id, one more for each later one. */
  version: number
  /** The upload's content id (SHA-256 of its canonical JSON). */
  hash: string
  size: number
  tools: ToolDeclaration[]
  origins: string[]
  uploadedAt: string
}

/** What storing a version answers. */
export interface StoredModule extends ModuleVersion {
  /** True when this upload is the module's current version already (nothing was written). */
  duplicate: boolean
}

/**
 * Checks `body` as a module upload; throws a coded `NeuronError` otherwise. `deployment` names the
 * deployment's own tools, which no module may shadow (nor a built-in).
 *
 * @example
 * const { hash } = checkModule({ module: 'weather', code: 'export default { async now() { return { c: 21 } } }', tools: [{ name: 'weather_now', description: 'The weather now', input: { type: 'object' }, output: { type: 'object' } }] }, { development: false }, new Set())
 */
export function checkModule(body: unknown, policy: OutboundPolicy, deployment: ReadonlySet<string>): CheckedModule {
  const parsed = parseOrThrow(ModuleUpload, body, 'INVALID_MODULE')
  const codeBytes = utf8Length(parsed.code)
  if (codeBytes > MAX_BACKEND_BYTES) tooLarge(`the module's code is ${codeBytes} bytes; the limit is ${MAX_BACKEND_BYTES}`, { bytes: codeBytes, limit: MAX_BACKEND_BYTES })
  if (parsed.tools.length > MODULE_LIMITS.tools) tooLarge(`the module declares ${parsed.tools.length} tools; the limit is ${MODULE_LIMITS.tools}`, { tools: parsed.tools.length, limit: MODULE_LIMITS.tools })
  if (parsed.origins.length > MODULE_LIMITS.origins) tooLarge(`the module lists ${parsed.origins.length} origins; the limit is ${MODULE_LIMITS.origins}`, { origins: parsed.origins.length, limit: MODULE_LIMITS.origins })
  const toolsBytes = utf8Length(canonicalJson(parsed.tools as unknown as Json))
  if (toolsBytes > MODULE_LIMITS.toolsBytes) tooLarge(`the module's tool declarations are ${toolsBytes} bytes; the limit is ${MODULE_LIMITS.toolsBytes}`, { bytes: toolsBytes, limit: MODULE_LIMITS.toolsBytes })
  const seen = new Set<string>()
  parsed.tools.forEach((tool, index) => {
    if (seen.has(tool.name)) throw new NeuronError('TOOL_NAME_DUPLICATE', `tools[${index}]: the module declares ${tool.name} twice`, { status: 400, details: { tool: tool.name } })
    seen.add(tool.name)
    const by = BUILTIN_TOOL_NAMES.includes(tool.name) ? 'builtin' : deployment.has(tool.name) ? 'deployment' : null
    if (by) throw nameTaken(tool.name, by)
    for (const side of ['input', 'output'] as const) checkSchemaAt(tool[side], `tools[${index}].${side}`, { tool: tool.name, side })
  })
  const origins = [...new Set(parsed.origins.map((origin) => originOf(origin)))].sort()
  // The one outbound rule for URLs from outside the code: no module lists what no fetch may reach.
  for (const origin of origins) checkOutboundUrl(origin, policy)
  const upload = { ...parsed, origins }
  const text = canonicalJson(upload as unknown as Json)
  const bytes = utf8Length(text)
  if (bytes > MODULE_LIMITS.bytes) tooLarge(`the module is ${bytes} bytes; the limit is ${MODULE_LIMITS.bytes}`, { bytes, limit: MODULE_LIMITS.bytes })
  return { hash: sha256Hex(text), text, upload }
}

/**
 * `TOOL_NAME_TAKEN` (409): `name` is a built-in's, the deployment's, or another of the principal's modules' (`module:<id>`).
 *
 * @example
 * throw nameTaken('calculator', 'builtin')
 */
export function nameTaken(name: string, by: string): NeuronError {
  return new NeuronError('TOOL_NAME_TAKEN', `the tool name ${name} is taken (${by}); give the tool another name`, { status: 409, details: { tool: name, by } })
}

function tooLarge(message: string, details: Record<string, number>): never {
  throw new NeuronError('MODULE_TOO_LARGE', message, { status: 413, details })
}
