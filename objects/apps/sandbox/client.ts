/**
 * The serving worker's side of the local sandbox (worker.ts; docs/backends.md#bounds): a
 * `BackendHost` that runs backend code in the sandbox process over Cap'n Web, so no backend runs
 * in the process that serves requests. One WebSocket session per load or call: closing it (at the
 * caller's deadline) ends the call in the sandbox, and a session that breaks because the sandbox
 * was killed never outlives that call.
 *
 * When a call fails and the sandbox has restarted since the call began, the supervisor stopped
 * it: the new generation says why (CPU or memory), and the call ends with that bound. Every call
 * in flight in the sandbox at that moment ends so, since the sandbox is one process: the local
 * bound is per process, not per isolate as on Cloudflare.
 */
import { newWebSocketRpcSession, type RpcStub } from 'capnweb'
import { NeuronError } from '../../errors.ts'
import { type BackendHost, BackendStopped } from '../loader.ts'
import type { SandboxApi, SandboxPing } from './worker.ts'

/** How long a call waits for the sandbox to answer: it restarts in well under a second. */
const SANDBOX_WAIT_MS = 10_000

/**
 * Backends in the sandbox at `base` (`http://127.0.0.1:<port>/<secret>`, the `BACKEND_SANDBOX` var).
 *
 * @example
 * const names = await sandboxHost(env.BACKEND_SANDBOX).methods(`check-${hash}`, module)
 */
export function sandboxHost(base: string): BackendHost {
  return {
    methods: (id, module) => inSandbox(base, undefined, (api) => api.methods(id, module)),
    invoke: (id, module, { method, input, deadlineMs, signal }, state, outbound) => inSandbox(base, signal, (api) => api.invoke(id, module, { method, input, deadlineMs }, state, outbound)),
  }
}

async function inSandbox<T>(base: string, signal: AbortSignal | undefined, use: (api: RpcStub<SandboxApi>) => Promise<T>): Promise<T> {
  const before = await ping(base)
  const api = newWebSocketRpcSession<SandboxApi>(`${base.replace(/^http/, 'ws')}/rpc`)
  const close = () => api[Symbol.dispose]()
  signal?.addEventListener('abort', close)
  try {
    return await use(api)
  } catch (error) {
    if (signal?.aborted) throw error
    const after = await ping(base).catch(() => null)
    if (after === null || after.generation === before.generation) throw error
    const { stopped } = after
    if (stopped?.limit) throw new BackendStopped(stopped.limit, stopped.message)
    throw new Error(`the backend sandbox stopped during the call: ${stopped?.message ?? 'no reason given'}`)
  } finally {
    signal?.removeEventListener('abort', close)
    close()
  }
}

/** The sandbox's answer to a ping, waiting for it while it (re)starts. */
async function ping(base: string): Promise<SandboxPing> {
  const deadline = Date.now() + SANDBOX_WAIT_MS
  for (;;) {
    try {
      const res = await fetch(`${base}/ping`)
      if (res.ok) return (await res.json()) as SandboxPing
    } catch {
      // not listening: it is starting again
    }
    if (Date.now() > deadline) throw new NeuronError('BACKEND_UNAVAILABLE', `the local backend sandbox has not answered for ${SANDBOX_WAIT_MS} ms (npm start runs it)`, { status: 503 })
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
