/**
 * Routing policy as pure decisions. Identity comes from the kernel (the port a
 * message arrived on), never from the message.
 *
 * - Calls and listings within one app (tile, tray, background) are allowed.
 * - The kernel's own tools are reachable by every endpoint; each applies its
 *   own checks (see kernel-tools.ts).
 * - Another app's endpoints need a grant: a one-call grant (consumed by the
 *   next listing or invocation) or a session grant.
 *
 * @example
 * decideRoute({ sourceApp: 'planner', targetApp: 'notes', grants: { session: false, oneCall: true } })
 * // { allow: true, via: 'one-call-grant' }
 */
import type { CallerKind } from '../../protocol/endpoint-id.ts'

export interface GrantView {
  session: boolean
  oneCall: boolean
}

export type RouteDecision =
  | { allow: true; via: 'same-app' | 'kernel' | 'session-grant' | 'one-call-grant' }
  | { allow: false; code: 'GRANT_REQUIRED'; message: string }

export function decideRoute(input: { sourceApp: string; targetApp: string | 'kernel'; grants: GrantView }): RouteDecision {
  const { sourceApp, targetApp, grants } = input
  if (targetApp === 'kernel') return { allow: true, via: 'kernel' }
  if (targetApp === sourceApp) return { allow: true, via: 'same-app' }
  if (grants.session) return { allow: true, via: 'session-grant' }
  if (grants.oneCall) return { allow: true, via: 'one-call-grant' }
  return {
    allow: false,
    code: 'GRANT_REQUIRED',
    message: `app "${sourceApp}" has no grant for app "${targetApp}"; ask with permissions.request`,
  }
}

export type GrantRequestDecision = { ask: true } | { ask: false; code: 'PERMISSION_DENIED' | 'BAD_REQUEST'; message: string }

/** May `sourceApp` ask the person for a grant on `targetApp`? Only for apps its manifest declares. */
export function decideGrantRequest(input: { sourceApp: string; targetApp: string; declared: readonly string[]; targetInstalled: boolean }): GrantRequestDecision {
  const { sourceApp, targetApp, declared, targetInstalled } = input
  if (targetApp === sourceApp) return { ask: false, code: 'BAD_REQUEST', message: 'an app needs no grant for itself' }
  if (!targetInstalled) return { ask: false, code: 'PERMISSION_DENIED', message: `app "${targetApp}" is not installed` }
  if (!declared.includes(targetApp)) {
    return { ask: false, code: 'PERMISSION_DENIED', message: `the manifest of "${sourceApp}" does not declare access to "${targetApp}"` }
  }
  return { ask: true }
}

/**
 * Private actions travel on the same port but are not tools: no discovery, no
 * cross-app routing, no audit of successes. Each names exactly who may send it.
 * Every action (tray.set_state, clipboard.write_text, connections.*, …) names its rule.
 */
export type PrivateActionRule = 'any-endpoint-of-app' | 'background-only' | 'tray-only' | 'tile-only' | 'focused-tile' | 'tile-or-background'

/** Is an endpoint of `kind` accepted for an action with `rule`? (`focused-tile` also needs the person's gesture in it: gesture.ts.) */
export function acceptsPrivateAction(rule: PrivateActionRule, kind: CallerKind): boolean {
  if (rule === 'any-endpoint-of-app') return true
  if (rule === 'background-only') return kind === 'background'
  if (rule === 'tile-only' || rule === 'focused-tile') return kind === 'tile'
  if (rule === 'tile-or-background') return kind === 'tile' || kind === 'background'
  return kind === 'tray'
}
