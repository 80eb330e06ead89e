/**
 * Permission gates for tests that build a `ToolContext` by hand and call tools with no side
 * effects, or whose subject is not the approval flow: `allowing` lets every call through,
 * `recording` keeps what each call asked so a test can assert a tool asked before acting.
 */
import type { PermissionGate, PermissionRequest } from '../../objects/permission/gate.ts'

/** A gate that allows every request. */
export const allowing: PermissionGate = { assert: async () => {} }

/** A gate that keeps each request and answers with `decide` (allow by default). */
export function recording(decide: (request: PermissionRequest) => Promise<void> = async () => {}): PermissionGate & { requests: PermissionRequest[] } {
  const requests: PermissionRequest[] = []
  return {
    requests,
    assert: (request) => {
      requests.push(request)
      return decide(request)
    },
  }
}

/** A config document's `permission` section that allows every tool of `source` (`host:*`, `mcp:*`). */
export function allowSource(source: string): { permission: { rules: { source: string; action: 'allow' }[] } } {
  return { permission: { rules: [{ source, action: 'allow' }] } }
}
