/**
 * The permission gate a session's tools assert before a side effect (gate.ts), over the pure
 * policy (policy.ts) with the session's layers: the owner's config document (`principal`) and the
 * session's own overrides (`session`), each one's `permission.rules`. `allow` resolves; `deny` throws
 * `PERMISSION_DENIED`; `ask` throws `PERMISSION_DENIED` too, saying approval is required, since no
 * one can answer here yet: this file is the one place that branch is replaced by a durable
 * request a person answers.
 *
 * The layers are read per call (a config change reaches the next call); a policy is compiled once
 * per pair of documents the gate last saw.
 */
import { NeuronError } from '../core/errors.ts'
import type { JsonObject } from '../ledger/json.ts'
import type { PermissionGate, PermissionRequest } from './gate.ts'
import { type PermissionRule, Policy, type PermissionDecision } from './policy.ts'

/** The documents whose `permission` sections are the policy's layers. */
export interface PolicyLayers {
  principal: JsonObject | null
  session: JsonObject | null
}

function rulesOf(document: JsonObject | null): PermissionRule[] | undefined {
  const section = document?.permission as { rules?: PermissionRule[] } | undefined
  return section?.rules
}

/**
 * The decision for a request: a `bash` request's subjects are command lines, judged command by
 * command (an unreadable line asks at least); any other tool's subjects are judged as they are.
 *
 * @example
 * decideRequest(policy, { tool: 'write', source: 'builtin', subjects: ['src/a.ts'], input }) // { action: 'ask', … }
 */
export function decideRequest(policy: Policy, request: PermissionRequest): PermissionDecision {
  if (request.tool === 'bash' && request.source === 'builtin') {
    let worst: PermissionDecision | null = null
    const rank = { allow: 0, ask: 1, deny: 2 }
    for (const line of request.subjects) {
      const decision = policy.decideCommand(line, request.source)
      if (worst === null || rank[decision.action] > rank[worst.action]) worst = decision
    }
    if (worst) return worst
  }
  return policy.decide({ tool: request.tool, source: request.source, subjects: request.subjects })
}

/**
 * @example
 * const gate = policyGate(async () => ({ principal: ownerDocument, session: overrides }))
 * await gate.assert({ tool: 'bash', source: 'builtin', subjects: ['ls'], input: { command: 'ls' } })
 */
export function policyGate(layers: () => Promise<PolicyLayers>): PermissionGate {
  let cached: { key: string; policy: Policy } | null = null
  return {
    async assert(request) {
      const { principal, session } = await layers()
      const key = JSON.stringify([rulesOf(principal) ?? null, rulesOf(session) ?? null])
      if (cached?.key !== key) cached = { key, policy: new Policy({ principal: rulesOf(principal), session: rulesOf(session) }) }
      const decision = decideRequest(cached.policy, request)
      if (decision.action === 'allow') return
      const subject = decision.subject === null ? '' : ` (${decision.subject})`
      if (decision.action === 'deny') {
        throw new NeuronError('PERMISSION_DENIED', `${request.tool}${subject} is denied: ${decision.reason}`, { status: 403, details: { tool: request.tool, subject: decision.subject, action: 'deny' } })
      }
      throw new NeuronError('PERMISSION_DENIED', `${request.tool}${subject} requires approval (${decision.reason}), and this session cannot ask for it: add an allow rule to the permission section of its config`, {
        status: 403,
        details: { tool: request.tool, subject: decision.subject, action: 'ask' },
      })
    },
  }
}
