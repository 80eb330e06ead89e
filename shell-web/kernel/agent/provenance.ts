/**
 * Provenance of nested calls. An endpoint answering an invocation that calls on to another tool
 * is an intermediate: by default the nested call is its own (attributed to it, and the target is
 * told so with `caller.nested`). With a delegation token, minted by the kernel tool
 * `attachments.delegate` under that very invocation, one nested call keeps the invocation's
 * provenance instead: the target sees `caller.origin`, the audit records `origin`. Routing policy
 * is always the intermediate's (it is the one calling; a token grants nothing).
 *
 * @example
 * // in a handler: const token = await context.delegate()
 * await bus.callTool({ target, name: 'echo_bytes', arguments: {} }, { attachment, delegation: token })
 * // the target's context.caller: { endpoint: 'app:relay:background', app: 'relay', origin: { endpoint: tileId, app: 'relay' } }
 */
import type { Call, Calls } from '../bus/calls.ts'
import type { Delegations, Origin } from './delegations.ts'
import type { Endpoint } from '../bus/endpoints.ts'
import { type KernelTool, tool } from '../bus/kernel-tools.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import type { InvokeCaller } from '../../protocol/envelope.ts'

/** How the kernel presents and records one call's caller. */
export interface Attribution {
  caller: InvokeCaller
  provenance?: Call['provenance']
}

export interface ProvenanceDeps {
  calls: Calls
  delegations: Delegations
}

/**
 * The kernel tool `attachments.delegate` and the attribution of calls, over one token table.
 *
 * @example
 * const provenance = createProvenance({ calls, delegations })
 * kernelTools.set('attachments.delegate', provenance.tool)
 * const who = provenance.attribute(ep, payload.delegation) // Attribution or a refusal
 */
export function createProvenance(deps: ProvenanceDeps): { tool: KernelTool; attribute(ep: Endpoint, token: unknown): Attribution | BusErrorShape } {
  const delegate = tool<{ invocation: number }>(
    'attachments.delegate',
    'Delegate one nested call',
    'While answering invocation `invocation`, get a token that lets one nested call (e.g. passing an attachment on) keep the provenance of the invocation\'s caller. One use, 10 s, bound to this endpoint session.',
    { type: 'object', properties: { invocation: { type: 'integer', minimum: 0 } }, required: ['invocation'], additionalProperties: false },
    (caller, { invocation }) => {
      const parent = deps.calls.invocation(caller, invocation)
      if (!parent) return { error: fail('DELEGATION_INVALID', `${caller.id} is not answering invocation ${invocation}`) }
      // A delegated invocation passes its own origin on: provenance survives any depth of nesting.
      const origin: Origin = parent.provenance?.kind === 'delegated' ? parent.provenance.origin : { endpoint: parent.caller.id, app: parent.caller.app }
      const minted = deps.delegations.mint({ endpoint: caller.id, session: caller.session }, origin, parent)
      return 'code' in minted ? { error: minted } : { ok: minted }
    },
  )
  return {
    tool: delegate,
    attribute(ep, token) {
      const self = { endpoint: ep.id, app: ep.app }
      if (token !== undefined) {
        if (typeof token !== 'string' || token.length > 64) return fail('BAD_REQUEST', 'delegation is a token from attachments.delegate')
        const redeemed = deps.delegations.redeem(token, { endpoint: ep.id, session: ep.session })
        if ('code' in redeemed) return redeemed
        return { caller: { ...self, origin: redeemed.origin }, provenance: { kind: 'delegated', origin: redeemed.origin } }
      }
      if (deps.calls.answering(ep)) return { caller: { ...self, nested: true }, provenance: { kind: 'intermediate' } }
      return { caller: self }
    },
  }
}
