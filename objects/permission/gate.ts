/**
 * What a tool with side effects asks before it acts (PermissionV2: assert policy + approval). The
 * tool formulates the request itself (the registry injects nothing): its name and source, what it
 * acts on (`subjects`: the command line for `bash`, the workspace paths for file tools, nothing for a
 * tool judged by name) and the input a person is shown. `assert` resolves when the call may run:
 * the policy allows it, or a person approved it; it throws `NeuronError` `PERMISSION_DENIED` (policy
 * or a person said no) or `PERMISSION_TIMEOUT` (nobody answered in time).
 */

/** One call's request for permission, as the tool formulates it. */
export interface PermissionRequest {
  /** The tool's name as the model calls it: `bash`, `write`, `mcp.github.create_issue`. */
  tool: string
  /** Where the tool comes from: `builtin`, `mcp:<server>`, `host:<offer>`. */
  source: string
  /** What the call acts on: each simple command for `bash`, each workspace path for file tools; empty for a tool judged by name. */
  subjects: string[]
  /** What a person deciding is shown (the call's input, bounded by the tool). */
  input: unknown
  /** Why the tool asks, in a sentence a person reads. */
  reason?: string
}

/** The one question a tool asks before acting. */
export interface PermissionGate {
  /**
   * Resolves when the call may run; throws `PERMISSION_DENIED` or `PERMISSION_TIMEOUT` otherwise.
   *
   * @example
   * await context.permission.assert({ tool: 'bash', source: 'builtin', subjects: ['rm -rf build'], input })
   */
  assert(request: PermissionRequest): Promise<void>
}
