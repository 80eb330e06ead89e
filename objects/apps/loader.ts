/**
 * App backends as Dynamic Workers: an app's backend module runs in its own
 * isolate, loaded with the Worker Loader binding. The isolate gets no bindings
 * (`env: {}`) and no network (`globalOutbound: null`); what a call may touch
 * arrives with the call: its `state` (state.ts) and an `Outbound` to the
 * kernel's gate (outbound-gate.ts), through which the kernel's wrapper sends
 * the backend's `fetch`. So each call gets exactly the access its kind allows,
 * and a backend can reach the network only during a call of its own.
 *
 * The kernel wraps the app's module in its own main module (`kernel.js`), which
 * dispatches only to the module's own functions, can list them (the upload
 * check), and keeps each call open until its deadline: a promise that never
 * settles is then a call that did not answer in time, not one the runtime
 * cancels as hung.
 *
 * Every load and every call's entrypoint carries `BACKEND_LIMITS` (CPU time and
 * subrequests, enforced by Cloudflare); the installation object adds the wall
 * clock (run.ts). `BackendHost` is what runs backends: this Worker Loader, or
 * locally the sandbox process that stands in for the bounds local workerd
 * does not enforce (sandbox/).
 */
import { BACKEND_LIMITS } from '../core/limits.ts'

/** Compatibility date of app backends: fixed by the kernel, not chosen by the app. */
const BACKEND_COMPATIBILITY_DATE = '2026-10-01'

/** The message the kernel rejects a call with at its deadline (run.ts answers it 504). */
export const DEADLINE_MESSAGE = 'neuron: the call reached its deadline'

/** The message the kernel rejects an answer over the call's output bound with (run.ts answers it `OUTPUT_TOO_LARGE`). */
export const OUTPUT_MESSAGE = 'neuron: the answer is over its size bound'

const KERNEL_MODULE = `import { WorkerEntrypoint } from 'cloudflare:workers'
import app from './backend.js'
const own = (name) => app !== null && typeof app === 'object' && Object.hasOwn(app, name) && typeof app[name] === 'function'
// The gates of the calls running now: every one leads to this installation's gate.
const gates = new Set()
const REDIRECTS = new Set([301, 302, 303, 307, 308])
// The backend's fetch, through the gate. Redirects are followed here, each hop through the gate
// again (the gate never follows one), with the body kept in this isolate for a 307 or 308.
globalThis.fetch = async (input, init) => {
  let gate
  for (gate of gates);
  if (gate === undefined) throw new TypeError('a backend reaches the network only during a call')
  const request = new Request(input, init)
  if (request.redirect === 'manual') return gate.fetch(request)
  let { method, url } = request
  let body = request.body === null ? null : await request.arrayBuffer()
  for (let hop = 0; ; hop++) {
    const response = await gate.fetch(new Request(url, { method, headers: request.headers, body, redirect: 'manual' }))
    const location = response.headers.get('location')
    if (!REDIRECTS.has(response.status) || location === null) return response
    if (request.redirect === 'error') throw new TypeError('fetch: the response is a redirect and redirect is "error"')
    if (hop === 20) throw new TypeError('fetch: too many redirects')
    await response.body?.cancel()
    url = new URL(location, url).href
    if (response.status === 303 || (response.status < 307 && method === 'POST')) [method, body] = [method === 'HEAD' ? 'HEAD' : 'GET', null]
  }
}
export class Backend extends WorkerEntrypoint {
  methods() { return app !== null && typeof app === 'object' ? Object.keys(app).filter(own) : [] }
  async invoke(method, input, state, gate, deadlineMs, maxOutputBytes) {
    if (!own(method)) throw new Error('the backend has no method ' + method)
    let timer
    gates.add(gate)
    try {
      const deadline = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(${JSON.stringify(DEADLINE_MESSAGE)})), deadlineMs) })
      const output = await Promise.race([app[method](input, state), deadline])
      // Measured here, in the code's own isolate, so an oversized answer never crosses to the kernel's object.
      if (maxOutputBytes > 0) {
        const bytes = new TextEncoder().encode(JSON.stringify(output) ?? '').byteLength
        if (bytes > maxOutputBytes) throw new Error(${JSON.stringify(OUTPUT_MESSAGE)} + ': ' + bytes + ' bytes of JSON, the bound is ' + maxOutputBytes)
      }
      return output
    } finally {
      clearTimeout(timer)
      gates.delete(gate)
    }
  }
}
export default { fetch() { return new Response(null, { status: 404 }) } }
`

/** One call of a backend method. */
export interface BackendCall {
  method: string
  input: unknown
  /** How long the kernel keeps the call open, in ms. */
  deadlineMs: number
  /** The largest answer, in bytes of JSON, the kernel hands back (none when absent). */
  maxOutputBytes?: number
}

/** The network a call may use: `fetch` through the installation's gate (an `Outbound`). */
export interface CallOutbound {
  fetch(request: Request): Promise<Response>
}

/**
 * What runs backends. `id` names the isolate: one per installation and package, so two people's
 * installations of one app never share an isolate's globals.
 */
export interface BackendHost {
  /** Loads `module` and lists the functions it exports. */
  methods(id: string, module: string): Promise<string[]>
  /** Runs `call` with `state` (an RPC target) and `outbound`; the method's answer. */
  invoke(id: string, module: string, call: BackendCall, state: unknown, outbound: CallOutbound | null): Promise<unknown>
}

/** Thrown when a bound stopped backend code: which one (run.ts answers it `BACKEND_LIMIT`). */
export class BackendStopped extends Error {
  override name = 'BackendStopped'
  constructor(
    readonly limit: 'cpu' | 'memory' | 'subrequests',
    message: string,
  ) {
    super(message)
  }
}

/** What the kernel calls in a loaded backend. */
interface BackendEntrypoint {
  methods(): Promise<string[]>
  invoke(method: string, input: unknown, state: unknown, outbound: CallOutbound | null, deadlineMs: number, maxOutputBytes: number): Promise<unknown>
}

const LIMITS = { cpuMs: BACKEND_LIMITS.cpuMs, subRequests: BACKEND_LIMITS.subRequests }

/**
 * Backends on this Worker Loader: each loaded (or reused while warm) under its id, with the limits
 * on the load and on every call's entrypoint.
 *
 * @example
 * const output = await loaderHost(env.LOADER).invoke(id, module, { method: 'count', input: {}, deadlineMs: 30_000 }, new ReadState(ledger), outbound)
 */
export function loaderHost(loader: WorkerLoader): BackendHost {
  const entrypoint = (id: string, module: string) =>
    loader
      .get(id, () => ({
        compatibilityDate: BACKEND_COMPATIBILITY_DATE,
        mainModule: 'kernel.js',
        modules: { 'kernel.js': KERNEL_MODULE, 'backend.js': module },
        env: {},
        globalOutbound: null,
        limits: LIMITS,
      }))
      .getEntrypoint('Backend', { limits: LIMITS }) as unknown as BackendEntrypoint
  return {
    methods: (id, module) => entrypoint(id, module).methods(),
    invoke: (id, module, call, state, outbound) => entrypoint(id, module).invoke(call.method, call.input, state, outbound, call.deadlineMs, call.maxOutputBytes ?? 0),
  }
}
