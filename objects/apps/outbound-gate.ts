/**
 * The outbound gate: the only way to the network of code from outside (an app
 * backend, a principal's uploaded tool module), a kernel-owned entrypoint of
 * this worker. The code's isolate is loaded with no network at all
 * (`globalOutbound: null`); each call hands the kernel's wrapper an `Outbound`
 * for the call's holder, and the code's `fetch` goes through it (loader.ts).
 * Each request arrives here with the holder it came from (`props`, set by the
 * kernel, not by the code): an installation, or a tool module's version in its
 * principal's shelf. The gate asks the holder whether the request's origin is
 * granted now (an installation's `backend_calls` grants; the origins a module's
 * owner listed in that version, while it is the module's current one), so a revocation
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

/** Which holder a gate serves: a person's installation of an app, or a version of a person's tool module. */
export type GateProps = { person: string; app: string } | { person: string; module: string; hash: string }

export class OutboundGate extends WorkerEntrypoint<Env, GateProps> {
  override async fetch(request: Request): Promise<Response> {
    const props = this.ctx.props
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
    if (origin !== null && (await this.allows(props, origin))) return fetch(request, { redirect: 'manual' })
    const asked = origin ?? request.url.slice(0, 200)
    const message = 'app' in props ? `${props.app} has no grant for ${asked}; ask for one with backend_calls.request` : `tool module ${props.module} has no grant for ${asked}; list it in the module's origins`
    return Response.json({ error: { code: 'ORIGIN_NOT_GRANTED', message, details: { origin } } }, { status: 403, headers: { 'x-neuron-gate': 'refused' } })
  }

  private allows(props: GateProps, origin: string): Promise<boolean> {
    if ('app' in props) return settled(this.env.APP_BACKENDS.getByName(installationName(props.person, props.app))).allows(origin)
    return settled(this.env.APP_SHELVES.getByName(props.person)).moduleAllows(props.module, props.hash, origin)
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
