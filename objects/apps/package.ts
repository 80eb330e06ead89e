/**
 * An app package: what a person installs. A manifest, the frontend files the
 * shell serves into the app's iframe, an optional backend module run in its own
 * isolate (loader.ts), and the backend's interface: methods, each a `query`
 * (reads) or an `update` (appends), with JSON Schema 2020-12 for its input and
 * output. A package is immutable and content-addressed: its id is the SHA-256
 * of its canonical JSON, so the same bytes are always the same version.
 *
 * Checked here, before anything is stored (pure, no platform): the shape
 * (`INVALID_PACKAGE`), sizes (`PACKAGE_TOO_LARGE`), the entry file
 * (`MISSING_ENTRY`), every interface schema (`INVALID_SCHEMA`, by the ledger's
 * own schema check), and that methods come with a backend. Whether the backend
 * module loads is checked by loading it (loader.ts).
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { canonicalJson, utf8Length } from '../ledger/json.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { checkSchemaAt } from '../ledger/schema-check.ts'
import { BACKEND_LIMITS, MAX_BACKEND_BYTES, MAX_INTERFACE_METHODS, MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES } from '../core/limits.ts'
import { parseOrThrow } from '../core/validate.ts'

/** An app id: one address segment, so `app.<id>` addresses stay valid. */
export const AppId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1–64 of [a-z0-9_-], starting with a letter or digit')
/** A package's content id: 64 hex digits. */
export const PackageHash = z.string().regex(/^[0-9a-f]{64}$/, 'must be a package hash (64 hex digits)')
const MethodName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be 1–64 of [A-Za-z0-9_], starting with a letter')
const FilePath = z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._/-]{0,199}$/, 'must be a relative path of [A-Za-z0-9._/-]').refine((path) => !path.split('/').includes('..'), 'must not contain ..')
/** A JSON Schema object as a declaration carries it (compiled and bounded by `checkSchemaAt`). */
export const JsonSchemaObject = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12) object')

/** One backend method: its kind, the schemas the kernel validates its input and output with, and an optional deadline. */
export const MethodSpec = z.strictObject({
  kind: z.enum(['query', 'update']),
  description: z.string().max(1024).optional(),
  /** The method's own wall-clock deadline, at most the kernel's (`BACKEND_LIMITS.wallMs`). */
  timeoutMs: z.number().int().min(1).max(BACKEND_LIMITS.wallMs).optional(),
  input: JsonSchemaObject,
  output: JsonSchemaObject,
})
export type MethodSpec = z.infer<typeof MethodSpec>

const ShellName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'must be 1–64 of [A-Za-z0-9_.-], starting with a letter')

/** The body of `POST /v1/apps/packages`. */
export const AppPackage = z.strictObject({
  manifest: z.strictObject({
    app: AppId,
    version: z.string().regex(/^[0-9A-Za-z.+-]{1,64}$/, 'must be 1–64 of [0-9A-Za-z.+-]'),
    name: z.string().min(1).max(128),
    /** The frontend file the shell opens first: the app's tile unless `entries` says otherwise. */
    entry: FilePath,
    description: z.string().max(1024).optional(),
    /** The shell's frames, each one of `files`: a tile, a tray popover, a resident background. */
    entries: z.strictObject({ tile: FilePath.optional(), tray: FilePath.optional(), background: FilePath.optional() }).optional(),
    /** Tools the app's frames may expose on the shell's bus. */
    tools: z.array(ShellName).max(64).optional(),
    /** Apps this app may ask the person for a grant on. */
    permissions: z.array(AppId).max(32).optional(),
    /** Background tools the owner may enable for an agent (Agent Mode). */
    agentEntrypoints: z.array(ShellName).max(16).optional(),
    /** Key derivation paths the app's frames may ask keys for (vetkeys.derive); the shell refuses any other. */
    vetkeys: z.array(z.string().regex(/^[A-Za-z0-9_.:/-]{1,128}$/, 'must be 1–128 of [A-Za-z0-9_.:/-]')).max(8).optional(),
    /** Network origins its backend will ask to reach (shown when the app is offered; granting is separate). */
    origins: z.array(z.string().url().max(2048)).max(64).optional(),
  }),
  files: z.record(FilePath, z.string()),
  /** An ES module whose default export is an object of async functions `(input, state) => output`. */
  backend: z.strictObject({ module: z.string().min(1) }).optional(),
  interface: z.strictObject({ methods: z.record(MethodName, MethodSpec) }).default({ methods: {} }),
})
export type AppPackage = z.infer<typeof AppPackage>

/** A checked package, its id and its canonical text (what is stored). */
export interface CheckedPackage {
  hash: string
  text: string
  pkg: AppPackage
}

/**
 * Checks `body` as a package and computes its content id; throws a coded `NeuronError` otherwise.
 *
 * @example
 * const { hash, pkg } = checkPackage({ manifest: { app: 'notes', version: '1', name: 'Notes', entry: 'index.html' }, files: { 'index.html': '<p>hi</p>' } })
 */
export function checkPackage(body: unknown): CheckedPackage {
  const pkg = parseOrThrow(AppPackage, body, 'INVALID_PACKAGE')
  const text = canonicalJson(pkg as never)
  const bytes = utf8Length(text)
  if (bytes > MAX_PACKAGE_BYTES) tooLarge(`the package is ${bytes} bytes; the limit is ${MAX_PACKAGE_BYTES}`, { bytes, limit: MAX_PACKAGE_BYTES })
  const files = Object.keys(pkg.files).length
  if (files > MAX_PACKAGE_FILES) tooLarge(`the package has ${files} files; the limit is ${MAX_PACKAGE_FILES}`, { files, limit: MAX_PACKAGE_FILES })
  if (pkg.backend && utf8Length(pkg.backend.module) > MAX_BACKEND_BYTES) tooLarge(`the backend module is over ${MAX_BACKEND_BYTES} bytes`, { limit: MAX_BACKEND_BYTES })
  for (const entry of [pkg.manifest.entry, ...Object.values(pkg.manifest.entries ?? {})]) {
    if (!(entry in pkg.files)) {
      throw new NeuronError('MISSING_ENTRY', `the entry ${JSON.stringify(entry)} is not among the package's files`, { status: 400, details: { entry } })
    }
  }
  const methods = Object.entries(pkg.interface.methods)
  if (methods.length > MAX_INTERFACE_METHODS) tooLarge(`the interface has ${methods.length} methods; the limit is ${MAX_INTERFACE_METHODS}`, { methods: methods.length, limit: MAX_INTERFACE_METHODS })
  if (methods.length > 0 && !pkg.backend) {
    throw new NeuronError('INVALID_PACKAGE', 'the interface declares methods but the package has no backend module', { status: 400, details: { issues: [{ path: 'backend', message: 'required when interface.methods is not empty' }] } })
  }
  for (const [name, spec] of methods) {
    for (const side of ['input', 'output'] as const) checkSchemaAt(spec[side], `interface.methods.${name}.${side}`, { method: name, side })
  }
  return { hash: sha256Hex(text), text, pkg }
}

function tooLarge(message: string, details: Record<string, number>): never {
  throw new NeuronError('PACKAGE_TOO_LARGE', message, { status: 413, details })
}
