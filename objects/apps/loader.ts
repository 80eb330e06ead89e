/**
 * App backends as Dynamic Workers: an app's backend module runs in its own
 * isolate, loaded with the Worker Loader binding (`env.LOADER`). The isolate
 * gets no bindings at all (`env: {}`); its only way out is `globalOutbound`,
 * which the kernel sets to its outbound gate (outbound-gate.ts) or to `null`.
 * State reaches a method as an argument (state.ts), never as a binding, so
 * each call gets exactly the access its kind allows.
 *
 * The kernel wraps the app's module in its own main module (`kernel.js`), which
 * dispatches only to the module's own functions and can list them, so "does
 * the backend load, and does it have every declared method" is one call.
 *
 * Each invocation runs under `BACKEND_LIMITS` (CPU time and subrequests, enforced by
 * Cloudflare); the installation object adds the wall-clock deadline (backend-object.ts).
 */
import { NeuronError } from '../errors.ts'
import { BACKEND_LIMITS } from '../limits.ts'

/** Compatibility date of app backends: fixed by the kernel, not chosen by the app. */
const BACKEND_COMPATIBILITY_DATE = '2026-10-01'

const KERNEL_MODULE = `import { WorkerEntrypoint } from 'cloudflare:workers'
import app from './backend.js'
const own = (name) => app !== null && typeof app === 'object' && Object.hasOwn(app, name) && typeof app[name] === 'function'
export class Backend extends WorkerEntrypoint {
  methods() { return app !== null && typeof app === 'object' ? Object.keys(app).filter(own) : [] }
  async invoke(method, input, state) {
    if (!own(method)) throw new Error('the backend has no method ' + method)
    return await app[method](input, state)
  }
}
export default { fetch() { return new Response(null, { status: 404 }) } }
`

/** What the kernel calls in a loaded backend. */
export interface BackendEntrypoint {
  methods(): Promise<string[]>
  invoke(method: string, input: unknown, state: unknown): Promise<unknown>
}

/**
 * The backend of an installation, loaded (or reused while warm) under `id`.
 * `outbound` is the only way the isolate can reach the network; `null` cuts it off.
 *
 * @example
 * const backend = loadBackend(env.LOADER, `app-${digest}`, source, gate)
 * await backend.invoke('count', {}, new ReadState(ledger))
 */
export function loadBackend(loader: WorkerLoader, id: string, module: string, outbound: Fetcher | null): BackendEntrypoint {
  const worker = loader.get(id, () => ({
    compatibilityDate: BACKEND_COMPATIBILITY_DATE,
    mainModule: 'kernel.js',
    modules: { 'kernel.js': KERNEL_MODULE, 'backend.js': module },
    env: {},
    globalOutbound: outbound,
    limits: { cpuMs: BACKEND_LIMITS.cpuMs, subRequests: BACKEND_LIMITS.subRequests },
  }))
  return worker.getEntrypoint('Backend') as unknown as BackendEntrypoint
}

/**
 * Loads `module` once, with no network, and checks it exports every method in `declared`.
 * Throws `BACKEND_LOAD_FAILED` (422) when it does not evaluate or lacks a method.
 *
 * @example
 * await checkBackend(env.LOADER, hash, pkg.backend.module, Object.keys(pkg.interface.methods))
 */
export async function checkBackend(loader: WorkerLoader, hash: string, module: string, declared: string[]): Promise<void> {
  let found: string[]
  try {
    found = await loadBackend(loader, `check-${hash}`, module, null).methods()
  } catch (error) {
    throw new NeuronError('BACKEND_LOAD_FAILED', `the backend module does not load: ${(error as Error).message}`, { status: 422, details: { reason: (error as Error).message } })
  }
  const missing = declared.filter((name) => !found.includes(name))
  if (missing.length > 0) {
    throw new NeuronError('BACKEND_LOAD_FAILED', `the backend module does not export the declared method(s) ${missing.join(', ')}`, { status: 422, details: { missing } })
  }
}
