/**
 * The serving worker's side of the local sandbox (worker.ts; docs/backends.md#bounds): a
 * `BackendHost` that runs backend code in the sandbox process over Cap'n Web, so no backend runs
 * in the process that serves requests. A host keeps one WebSocket session while it is used (an
 * installation object keeps its host), and a session that breaks because the sandbox was killed
 * is dropped with it. A call needs no closing at its deadline: the kernel in the sandbox ends it
 * at the same deadline, and one that holds the CPU is the supervisor's to stop.
 *
 * When a call fails and the sandbox has restarted since the call began, the supervisor stopped
 * it: the new generation says why (CPU or memory), and the call ends with that bound. Every call
 * in flight in the sandbox at that moment ends so, since the sandbox is one process: the local
 * bound is per process, not per isolate as on Cloudflare.
 */
import { newWebSocketRpcSession, type RpcStub } from 'capnweb'
import { NeuronError } from '../../core/errors.ts'
import { type BackendHost, BackendStopped } from '../loader.ts'
import type { SandboxApi, SandboxPing } from './worker.ts'

/** How long a call waits for the sandbox to answer: it restarts in well under a second. */
const SANDBOX_WAIT_MS = 10_000
/** A session no call has used for this long is closed. */
const IDLE_MS = 30_000

/**
 * Backends in the sandbox at `base` (`http://127.0.0.1:<port>/<secret>`, the `BACKEND_SANDBOX` var).
 * Calls share one session, opened on first use and closed after `IDLE_MS` without a call.
 *
 * @example
 * const names = await sandboxHost(env.BACKEND_SANDBOX).methods(`check-${hash}`, module)
 */
export function sandboxHost(base: string): BackendHost {
  let session: Promise<Session> | undefined
  let running = 0
  let idle: ReturnType<typeof setTimeout> | undefined
  const drop = (dropped: Promise<Session>) => {
    if (session !== dropped) return
    session = undefined
    void dropped.then(({ api }) => api[Symbol.dispose]()).catch(() => {})
  }
  const inSandbox = async <T>(use: (api: RpcStub<SandboxApi>) => Promise<T>): Promise<T> => {
    clearTimeout(idle)
    running += 1
    const opened = (session ??= open(base, () => drop(opened)))
    try {
      const current = await opened.catch((error: unknown) => {
        drop(opened)
        throw error
      })
      try {
        return await use(current.api)
      } catch (error) {
        // The backend's own failure, or the sandbox stopped under it: a new generation says which.
        const after = await ping(base).catch(() => null)
        if (after === null || after.generation === current.generation) throw error
        drop(opened)
        const { stopped } = after
        if (stopped?.limit) throw new BackendStopped(stopped.limit, stopped.message)
        throw new Error(`the backend sandbox stopped during the call: ${stopped?.message ?? 'no reason given'}`)
      }
    } finally {
      running -= 1
      if (running === 0) idle = setTimeout(() => drop(opened), IDLE_MS)
    }
  }
  return {
    methods: (id, module) => inSandbox((api) => api.methods(id, module)),
    invoke: (id, module, call, state, outbound) => inSandbox((api) => api.invoke(id, module, call, state, outbound)),
  }
}

/** One session with one generation of the sandbox. */
interface Session {
  api: RpcStub<SandboxApi>
  generation: number
}

async function open(base: string, onBroken: () => void): Promise<Session> {
  const { generation } = await ping(base)
  const api = newWebSocketRpcSession<SandboxApi>(`${base.replace(/^http/, 'ws')}/rpc`)
  api.onRpcBroken(onBroken)
  return { api, generation }
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
