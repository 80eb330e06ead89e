/**
 * The local sandbox's worker: what runs in the workerd process that `npm start` keeps for app
 * backend code (scripts/sandbox.ts starts it, watches it, and kills and restarts it past a bound).
 * It serves the serving worker's `sandboxHost` (client.ts) over Cap'n Web on a loopback port, and
 * runs each backend exactly as a deployment does, through its own Worker Loader (`loaderHost`):
 * the same kernel, limits and isolate per installation. The state and the outbound gate of a call
 * stay in the serving worker; they arrive here as stubs and pass on into the backend's isolate.
 *
 * Its path starts with a secret the supervisor chose, so only the process it was handed to can
 * reach it. `/ping` answers the supervisor's liveness check and tells a caller which generation of
 * the process this is and why the one before it stopped.
 */
import { newWorkersRpcResponse, RpcTarget } from 'capnweb'
import { type BackendCall, type BackendHost, type CallOutbound, loaderHost } from '../loader.ts'

/** The sandbox's bindings, written by its supervisor. */
interface SandboxEnv {
  LOADER: WorkerLoader
  /** The first path segment of every route. */
  SECRET: string
  /** Which start of the process this is (0 for the first). */
  GENERATION: string
  /** JSON `{ limit, message }` of why the previous generation stopped, or "". */
  STOPPED: string
}

/** Why a generation of the sandbox stopped, as the next one reports it. */
export interface SandboxStop {
  limit: 'cpu' | 'memory' | null
  message: string
}

/** What `/ping` answers. */
export interface SandboxPing {
  generation: number
  stopped: SandboxStop | null
}

/** The API the serving worker calls (over Cap'n Web). */
export class SandboxApi extends RpcTarget {
  readonly #host: BackendHost

  constructor(host: BackendHost) {
    super()
    this.#host = host
  }

  methods(id: string, module: string): Promise<string[]> {
    return this.#host.methods(id, module)
  }

  invoke(id: string, module: string, call: BackendCall, state: unknown, outbound: CallOutbound | null): Promise<unknown> {
    return this.#host.invoke(id, module, call, state, outbound)
  }
}

export default {
  fetch(request: Request, env: SandboxEnv): Response | Promise<Response> {
    const { pathname } = new URL(request.url)
    if (pathname === `/${env.SECRET}/ping`) {
      const ping: SandboxPing = { generation: Number(env.GENERATION), stopped: env.STOPPED ? (JSON.parse(env.STOPPED) as SandboxStop) : null }
      return Response.json(ping)
    }
    if (pathname === `/${env.SECRET}/rpc`) return newWorkersRpcResponse(request, new SandboxApi(loaderHost(env.LOADER)))
    return new Response(null, { status: 404 })
  },
}
