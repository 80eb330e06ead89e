/**
 * A principal's tool modules as its shelf keeps them (objects/apps/shelf-object.ts composes this):
 * each upload's canonical text is an artifact of the shelf's ledger (content-addressed, so the same
 * upload is stored once), named by one `module.stored` envelope on the modules topic; retiring a
 * module is a `module.retired` one. The fold of that topic is each module's current version and how
 * many versions it has had, so a version number is never reused. One row per version plus the
 * artifact's chunks; the fold holds declarations only (bounded: `MODULE_LIMITS`), never code.
 *
 * A call runs the version the session was shown, only while it is the module's current one
 * (`TOOL_STALE` otherwise), in the isolate of that principal and version, under the app backends'
 * bounds (objects/apps/run.ts), with the outbound gate of that version (only the origins it lists),
 * no bindings and no state; its input and output are checked against its declared schemas.
 */
import { NeuronError } from '../core/errors.ts'
import { BACKEND_LIMITS, MODULE_LIMITS } from '../core/limits.ts'
import type { Stored } from '../ledger/envelope.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { assertJson, type Json } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { assertValid, SchemaValidator } from '../ledger/validator.ts'
import { TopicFold } from '../core/journal.ts'
import type { BackendHost } from '../apps/loader.ts'
import { Outbound } from '../apps/outbound-gate.ts'
import { runMethod } from '../apps/run.ts'
import { type CheckedModule, type ModuleUpload, type ModuleVersion, nameTaken, type StoredModule, type ToolDeclaration } from './module.ts'

export type { ModuleVersion, StoredModule } from './module.ts'

/** The topic module versions and retirements are written to, in the principal's shelf ledger. */
export const MODULES_TOPIC = 'tool.modules'
const MODULE_KIND = 'application/vnd.neuron.tool-module+json'

interface ModulesState {
  current: Map<string, ModuleVersion>
  versions: Map<string, number>
}

/** A gate of this worker made with `props` (ctx.exports.OutboundGate). */
export type GateFactory = (options: { props: { person: string; module: string; hash: string } }) => Fetcher

/**
 * The fold of the modules topic: each module's current version, and its version count.
 *
 * @example
 * ledger.fold(MODULES_TOPIC, foldModules, { current: new Map(), versions: new Map() })
 */
export function foldModules(state: ModulesState, envelope: Stored): ModulesState {
  const payload = envelope.payload as unknown as Omit<ModuleVersion, 'uploadedAt'>
  const current = new Map(state.current)
  const versions = new Map(state.versions)
  if (envelope.type === 'module.stored') {
    current.set(payload.module, { ...payload, uploadedAt: new Date(envelope.time).toISOString() })
    versions.set(payload.module, payload.version)
  } else if (envelope.type === 'module.retired') current.delete(payload.module)
  return { current, versions }
}

/**
 * @example
 * const modules = new ToolModules(ledger, () => backendHost(env), exports.OutboundGate)
 * modules.put('idp#ada', checked) // { module: 'weather', version: 1, … duplicate: false }
 */
export class ToolModules {
  private readonly fold: TopicFold<ModulesState>
  /** Code of recently called versions, by hash: a few, each at most `MODULE_LIMITS.bytes`. */
  private readonly code = new Map<string, string>()
  private readonly validators = new Map<string, { input: SchemaValidator; output: SchemaValidator }>()
  private host: BackendHost | undefined

  constructor(
    private readonly ledger: Ledger,
    private readonly hostOf: () => BackendHost,
    private readonly gate: GateFactory,
  ) {
    this.fold = new TopicFold(ledger, MODULES_TOPIC, foldModules, () => ({ current: new Map(), versions: new Map() }))
  }

  /**
   * Stores `checked` as the next version of its module. `TOOL_NAME_TAKEN` (409) when another of the
   * principal's modules offers one of its names; `TOO_MANY_MODULES` (409) past `MODULE_LIMITS.modules`.
   */
  put(person: string, checked: CheckedModule, transaction: (write: () => void) => void): StoredModule {
    const { current, versions } = this.fold.current()
    const id = checked.upload.module
    const now = current.get(id)
    if (now?.hash === checked.hash) return { ...now, duplicate: true }
    for (const other of current.values()) {
      if (other.module === id) continue
      const clash = other.tools.find((tool) => checked.upload.tools.some((mine) => mine.name === tool.name))
      if (clash) throw nameTaken(clash.name, `module:${other.module}`)
    }
    if (!now && current.size >= MODULE_LIMITS.modules) {
      throw new NeuronError('TOO_MANY_MODULES', `a principal keeps at most ${MODULE_LIMITS.modules} tool modules; retire one first`, { status: 409, details: { limit: MODULE_LIMITS.modules } })
    }
    const bytes = new TextEncoder().encode(checked.text)
    const payload = { module: id, version: (versions.get(id) ?? 0) + 1, hash: checked.hash, size: bytes.byteLength, tools: checked.upload.tools, origins: checked.upload.origins }
    transaction(() => {
      this.ledger.artifacts.put(bytes, MODULE_KIND, checked.hash)
      this.ledger.append({ topic: MODULES_TOPIC, type: 'module.stored', author: person, payload: payload as unknown as Json })
    })
    return { ...this.fold.current().current.get(id)!, duplicate: false }
  }

  /** Retires a module: its tools leave every session at its next turn; retiring what is not there is no change. */
  retire(person: string, id: string): { module: string; retired: boolean } {
    const now = this.fold.current().current.get(id)
    if (!now) return { module: id, retired: false }
    this.ledger.append({ topic: MODULES_TOPIC, type: 'module.retired', author: person, payload: { module: id, version: now.version, hash: now.hash } })
    return { module: id, retired: true }
  }

  /** The current version of every module, by id. */
  list(): ModuleVersion[] {
    return [...this.fold.current().current.values()].sort((a, b) => a.module.localeCompare(b.module))
  }

  /** A module's current version with its code, or null. */
  get(id: string): (ModuleVersion & { code: string }) | null {
    const now = this.fold.current().current.get(id)
    return now ? { ...now, code: this.codeOf(now.hash) } : null
  }

  /** Whether version `hash` of module `id` may fetch `origin` now: it is current, and lists it. */
  allows(id: string, hash: string, origin: string): boolean {
    const now = this.fold.current().current.get(id)
    return now?.hash === hash && now.origins.includes(origin)
  }

  /**
   * Runs `tool` of version `hash` of module `id` on `input`; its output, checked against the
   * declared schema. Codes: `TOOL_STALE` (409, not the current version), `TOOL_INPUT_INVALID`,
   * `TOOL_OUTPUT_INVALID`, and run.ts's (`BACKEND_TIMEOUT`, `BACKEND_LIMIT`, `BACKEND_FAILED`, `OUTPUT_TOO_LARGE`).
   */
  async call(person: string, id: string, hash: string, tool: string, input: unknown): Promise<{ output: Json }> {
    const now = this.fold.current().current.get(id)
    const declared = now?.hash === hash ? now.tools.find((candidate) => candidate.name === tool) : undefined
    if (!now || !declared) throw new NeuronError('TOOL_STALE', `${tool} of tool module ${id} (${hash.slice(0, 12)}) is no longer offered: the module was retired or has a newer version`, { status: 409, details: { module: id, hash } })
    const label = `${id}@${now.version}`
    const checks = this.validatorsOf(hash, declared)
    assertValid(checks.input, input, 'TOOL_INPUT_INVALID', 400, `input of ${tool} (tool module ${label}) does not match its schema`)
    const run = {
      id: `module-${sha256Hex(person).slice(0, 32)}-${hash.slice(0, 32)}`,
      module: this.codeOf(hash),
      label,
      method: tool,
      input,
      timeoutMs: declared.timeoutMs ?? BACKEND_LIMITS.wallMs,
      maxOutputBytes: MODULE_LIMITS.outputBytes,
    }
    const output = await runMethod((this.host ??= this.hostOf()), run, null, new Outbound(this.gate({ props: { person, module: id, hash } })))
    try {
      assertJson(output)
    } catch (error) {
      throw new NeuronError('TOOL_OUTPUT_INVALID', `${tool} (tool module ${label}) answered a value that is not JSON: ${(error as Error).message}`, { status: 502, details: { tool } })
    }
    assertValid(checks.output, output, 'TOOL_OUTPUT_INVALID', 502, `output of ${tool} (tool module ${label}) does not match its schema`)
    return { output }
  }

  private codeOf(hash: string): string {
    let code = this.code.get(hash)
    if (code === undefined) {
      const bytes = this.ledger.artifacts.get(hash)
      if (!bytes) throw new NeuronError('MODULE_NOT_FOUND', `no tool module version ${hash}`, { status: 404 })
      code = (JSON.parse(new TextDecoder().decode(bytes)) as ModuleUpload).code
      if (this.code.size >= 4) this.code.delete(this.code.keys().next().value!)
    }
    // Most recently used last, so the oldest is the first dropped.
    this.code.delete(hash)
    this.code.set(hash, code)
    return code
  }

  private validatorsOf(hash: string, tool: ToolDeclaration): { input: SchemaValidator; output: SchemaValidator } {
    const key = `${hash}/${tool.name}`
    let checks = this.validators.get(key)
    if (!checks) {
      if (this.validators.size >= MODULE_LIMITS.tools) this.validators.clear()
      checks = { input: new SchemaValidator(tool.input), output: new SchemaValidator(tool.output) }
      this.validators.set(key, checks)
    }
    return checks
  }
}
