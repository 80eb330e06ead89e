/**
 * The outbound gate: an app backend's only way to the network, a kernel-owned
 * entrypoint of this worker. A backend's isolate is loaded with no network at
 * all (`globalOutbound: null`); each call hands the kernel's wrapper an
 * `Outbound` for the call's installation, and the backend's `fetch` goes
 * through it (loader.ts). Each request arrives here with the installation it
 * came from (`props`, set by the kernel, not by the app). The gate asks the
 * installation whether the request's origin is granted now, so a revocation
 * takes effect on the next request; a redirect goes back to the backend, whose
 * fetch follows it through this gate again, so a granted origin cannot lead
 * the backend to an ungranted one. Raw TCP (`connect()`) also arrives here and
 * is refused: the gate has no `connect`. It refuses the rest with 403 and the code
 * `ORIGIN_NOT_GRANTED`, or `URL_REFUSED` for a URL the outbound policy refuses whatever
 * is granted (objects/outbound/policy.ts: a private or reserved address); the header
 * `x-neuron-gate: refused` tells the refusal from the origin's own 403.
 */
import { RpcTarget, WorkerEntrypoint } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import type { NeuronError } from '../core/errors.ts'
import { settled } from '../core/rpc.ts'
import { checkOutboundUrl } from '../outbound/policy.ts'
import { originOf } from './grants.ts'
import { installationName } from './installation.ts'

/** Which installation a gate serves. */
export interface GateProps {
  person: string
  app: string
}

export class OutboundGate extends WorkerEntrypoint<Env, GateProps> {
  override async fetch(request: Request): Promise<Response> {
    const { person, app } = this.ctx.props
    try {
      checkOutboundUrl(request.url, { development: this.env.NEURON_ENV === 'development' })
    } catch (error) {
      const { code, message, details } = error as NeuronError
      return Response.json({ error: { code, message, details } }, { status: 403, headers: { 'x-neuron-gate': 'refused' } })
    }
    let origin: string | null = null
    try {
      origin = originOf(request.url)
    } catch {
      // Not an http(s) URL: never granted.
    }
    // Never follow a redirect here: the backend's own fetch follows it, back through this gate.
    if (origin !== null && (await settled(this.env.APP_BACKENDS.getByName(installationName(person, app))).allows(origin))) return fetch(request, { redirect: 'manual' })
    const body = { error: { code: 'ORIGIN_NOT_GRANTED', message: `${app} has no grant for ${origin ?? request.url.slice(0, 200)}; ask for one with backend_calls.request`, details: { origin } } }
    return Response.json(body, { status: 403, headers: { 'x-neuron-gate': 'refused' } })
  }
}

/**
 * What one backend call receives to reach the network: the installation's gate behind an RPC
 * target, so the same object crosses the Worker Loader's RPC and, locally, the sandbox's (a service
 * binding itself does not cross the latter: capnweb calls `dup` on it, which RPC reserves).
 *
 * @example
 * await backend.invoke(id, module, call, state, new Outbound(exports.OutboundGate({ props: { person, app } })))
 */
export class Outbound extends RpcTarget {
  readonly #gate: Fetcher

  constructor(gate: Fetcher) {
    super()
    this.#gate = gate
  }

  fetch(request: Request): Promise<Response> {
    return this.#gate.fetch(request)
  }
}
