/**
 * An orchestration's shared workspace (docs/orchestration.md#a-shared-workspace): one tree in the
 * orchestration's own SQLite (the same `WorkspaceStore` a session keeps, its events on
 * `orchestration.{id}.workspace`), which the packages' file tools act on over RPC when the
 * orchestration was created with `workspace: 'shared'`.
 *
 * A package's call is authorized by its agent's token (the credential only the orchestration and
 * the package's session hold: the session's name carries it) and the turn the call comes from
 * (its prompts name the package, its principals are checked as every agent input's are, cause.ts):
 * - reading is for a package that is under way (not final);
 * - writing is for a package that is executing (cleared), and only paths its declaration names
 *   among its `workspace:` writes (`WORKSPACE_WRITE_UNDECLARED` otherwise, nothing written). So the
 *   DAG's clearance, which serialises packages whose declared writes overlap, also serialises the
 *   writes themselves.
 * Each change is a `workspace.changed` event authored `agent:{token}`, naming the package and the
 * tool call (`by`). The owner reads the tree through the same calls as a session's workspace
 * (`WorkspaceCalls`: list, read, tar, diff); nobody uploads into it.
 */
import type { Caller } from '../access/authorize.ts'
import { NeuronError } from '../core/errors.ts'
import { parseOrThrow } from '../core/validate.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { type PackageWorkspaceAnswer, PackageWorkspaceCall } from '../agent-link/workspace.ts'
import { WorkspaceCalls } from '../workspace/calls.ts'
import { compileGlob } from '../workspace/glob.ts'
import { filePath, normalizePath } from '../workspace/paths.ts'
import { ledgerLog, WorkspaceStore } from '../workspace/store.ts'
import type { FileEntry } from '../workspace/tree.ts'
import { agentCause } from './cause.ts'
import { WORKSPACE_RESOURCE } from './clearance.ts'
import { packageOfAgent } from './fanout.ts'
import { FINAL_BEATS, type OrchState, type PackageState } from './state.ts'

export interface SharedWorkspaceHost {
  /** The orchestration's id. */
  name: string
  ledger: Ledger
  storage: DurableObjectStorage
  state(): OrchState
  /** Authorizes an owner's or share holder's read of the orchestration, or throws its 404. */
  check(caller: Caller): void
}

/**
 * @example
 * const workspace = new SharedWorkspace({ name, ledger, storage: ctx.storage, state: () => this.state, check: (caller) => this.check(caller) })
 * await workspace.answer(token, { op: 'commit', writes: [{ path: 'notes/a.md', bytes }], by: 'call_1', prompts, principals: ['orchestration:o1'] })
 */
export class SharedWorkspace {
  /** The owner's reads (list, read, tar, diff), the same calls a session's workspace answers. */
  readonly calls: WorkspaceCalls
  private readonly store: WorkspaceStore
  /** Who the commit under way writes for: its events' author and package. */
  private writer = NOBODY

  constructor(private readonly host: SharedWorkspaceHost) {
    const topic = `orchestration.${host.name}.workspace`
    this.store = new WorkspaceStore(host.storage, host.ledger.artifacts, ledgerLog(host.ledger, topic, () => this.writer.author, () => ({ package: this.writer.package })))
    this.calls = new WorkspaceCalls({
      workspace: { store: this.store, bytesOf: async (entry) => this.bytesOf(entry) },
      check: (caller, action) => {
        host.check(caller)
        if (action !== 'read') throw new NeuronError('WORKSPACE_PACKAGES_ONLY', "an orchestration's shared workspace is written by its packages' tools only", { status: 403 })
      },
      owner: () => host.state().owner,
    })
  }

  /** One call of a package's session, authorized by its agent `token` and its turn. */
  answer(token: string, input: unknown): PackageWorkspaceAnswer {
    const call = parseOrThrow(PackageWorkspaceCall, input, 'INVALID_REQUEST')
    const state = this.host.state()
    if (!state.exists) throw new NeuronError('ORCHESTRATION_NOT_FOUND', `no orchestration ${this.host.name}`, { status: 404 })
    // The planner is no package: its tools keep its own workspace.
    if (call.op === 'mode') return state.workspace === 'shared' && state.tokens.has(token) ? 'shared' : 'own'
    const pkg = packageFor(state, this.host.name, token, call)
    switch (call.op) {
      case 'entry':
        return this.store.entry(filePath(call.path))
      case 'list':
        return this.store.list(normalizePath(call.dir), { ...(call.after === undefined ? {} : { after: normalizePath(call.after) }), ...(call.limit === undefined ? {} : { limit: call.limit }) })
      case 'read':
        return call.paths.map((path) => {
          const entry = this.store.entry(filePath(path))
          return [path, entry && this.bytesOf(entry)]
        })
      case 'commit': {
        const writes = call.writes.map(({ path, bytes }) => ({ path: filePath(path), bytes }))
        for (const { path } of writes) assertDeclaredWrite(pkg, path)
        this.writer = { author: `agent:${token}`, package: pkg.id }
        try {
          return this.store.commit(writes, call.by)
        } finally {
          this.writer = NOBODY
        }
      }
    }
  }

  private bytesOf(entry: FileEntry): Uint8Array {
    const bytes = this.store.artifacts.get(entry.content)
    if (bytes === null) throw new Error(`workspace blob ${entry.content} of ${entry.path} is missing`)
    return bytes
  }
}

const NOBODY = { author: 'object:orchestration', package: '' }

/**
 * The package a call acts for: the token's package in the turn the call names, under way, in an
 * orchestration whose workspace is shared, and a turn this orchestration or its owner prompted;
 * a write needs the package executing. Throws the refusal's code otherwise.
 */
function packageFor(state: OrchState, name: string, token: string, call: { op: string; prompts: string[]; principals: string[] }): PackageState {
  if (state.workspace !== 'shared') throw new NeuronError('WORKSPACE_NOT_SHARED', `orchestration ${name} gives each package its own workspace`, { status: 409 })
  const pkg = packageOfAgent(state, token, call.prompts)
  if (!pkg || pkg.agent !== token) throw new NeuronError('NOT_YOUR_AGENT', `this agent holds no package of orchestration ${name}`, { status: 403 })
  const cause = agentCause(call.principals, name, state.owner)
  if ('refused' in cause) throw new NeuronError('AGENT_INPUT_REFUSED', cause.refused, { status: 403 })
  if (FINAL_BEATS.has(pkg.beat)) throw new NeuronError('PACKAGE_NOT_ACTIVE', `package ${pkg.id} is ${pkg.beat}`, { status: 409, details: { package: pkg.id, beat: pkg.beat } })
  if (call.op === 'commit' && pkg.beat !== 'executing') {
    throw new NeuronError('PACKAGE_NOT_CLEARED', `package ${pkg.id} is ${pkg.beat}: it writes the shared workspace once cleared`, { status: 409, details: { package: pkg.id, beat: pkg.beat } })
  }
  return pkg
}

/**
 * Refuses a write outside the package's declared `workspace:` writes (`WORKSPACE_WRITE_UNDECLARED`).
 *
 * @example
 * assertDeclaredWrite(pkg, 'notes/a.md') // pkg declared writes ['workspace:notes/**']: passes
 */
export function assertDeclaredWrite(pkg: Pick<PackageState, 'id' | 'declaration'>, path: string): void {
  const globs = (pkg.declaration?.writes ?? []).filter((key) => key.startsWith(WORKSPACE_RESOURCE)).map((key) => key.slice(WORKSPACE_RESOURCE.length))
  if (globs.some((glob) => matches(glob, path))) return
  throw new NeuronError('WORKSPACE_WRITE_UNDECLARED', `package ${pkg.id} did not declare writing ${path} (its workspace writes: ${globs.join(', ') || 'none'})`, {
    status: 403,
    details: { package: pkg.id, path, declared: globs },
  })
}

function matches(glob: string, path: string): boolean {
  try {
    return compileGlob(glob).test(path)
  } catch {
    return false
  }
}
