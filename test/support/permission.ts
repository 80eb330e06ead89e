/**
 * Permission gates for tests that execute tools directly: one that allows every request (and
 * records them, so a test can say what a tool asked), and one that decides by a policy's rules.
 */
import type { PermissionGate, PermissionRequest } from '../../objects/permission/gate.ts'
import { policyGate } from '../../objects/permission/policy-gate.ts'
import type { PermissionRule } from '../../objects/permission/policy.ts'

/** Allows everything; `requests` holds what was asked, in order. */
export function allowAll(): PermissionGate & { requests: PermissionRequest[] } {
  const requests: PermissionRequest[] = []
  return {
    requests,
    async assert(request) {
      requests.push(request)
    },
  }
}

/** The session's gate over a session layer of `rules`. */
export function gateOf(rules: PermissionRule[]): PermissionGate {
  return policyGate(async () => ({ principal: null, session: { permission: { rules } } as never }))
}
