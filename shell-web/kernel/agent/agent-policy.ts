/**
 * Agent Mode as pure decisions: who may ask the owner to enable an agent
 * entrypoint, and what a call made for the agent (under an invocation
 * capability) or made beside one (through the global client) may do. The
 * kernel supplies the facts it derived (the sender's kind, focus, activation,
 * counts); nothing here reads the page or a message's claims.
 *
 * - `agent.mode.request` comes only from a tile (the private-action table refuses a tray or a
 *   background), and only with the person's gesture in that tile (gesture.ts), for an entrypoint
 *   the manifest declares.
 * - One consent dialog at a time (UI_BUSY), a few per app per minute (AGENT_CONSENT_LIMIT), a
 *   bounded number of enabled entrypoints (AGENT_MODE_LIMIT).
 * - A call made for the agent never asks the person: what would need a dialog or a grant is
 *   OWNER_REQUIRED, and a tray never receives a delegated call.
 * - While an app is running a call for the agent, its ordinary (global) client may not leave the
 *   app (SCOPED_CONTEXT_REQUIRED), so the agent's authority cannot be laundered through another
 *   tile or the resident frame.
 *
 * @example
 * decideAgentModeRequest({ gesture: { allow: true }, declared: ['notes_search'], entrypoint: 'notes_search', alreadyEnabled: false, dialogOpen: false, recentConsents: 0, enabledCount: 0, nameTaken: false })
 * // { ask: true }
 */
import type { Code } from '../../protocol/codes.ts'
import type { EndpointKind } from '../../protocol/endpoint-id.ts'
import { LIMITS } from '../../protocol/limits.ts'
import type { GestureDecision } from '../consent/gesture.ts'

export type Refusal = { code: Code; message: string; retryAfterMs?: number }

/** The bounds of Agent Mode's consent, adjustable on the trusted page (tests shorten them). */
export interface AgentLimits {
  consentTimeoutMs: number
  consentsPerWindow: number
  consentWindowMs: number
  maxEnabled: number
}

/** A fresh copy of the default bounds (from the one limits table). */
export function defaultAgentLimits(): AgentLimits {
  return { consentTimeoutMs: LIMITS.agentConsentTimeoutMs, consentsPerWindow: LIMITS.agentConsentsPerWindow, consentWindowMs: LIMITS.agentConsentWindowMs, maxEnabled: LIMITS.maxAgentEntrypoints }
}

export interface AgentModeRequestFacts {
  /** The person's gesture is in the sender's tile: the kernel's one gesture check (gesture.ts). */
  gesture: GestureDecision
  declared: readonly string[]
  entrypoint: string
  /** This exact app version and entrypoint are enabled already. */
  alreadyEnabled: boolean
  /** A consent dialog is open now (for any app). */
  dialogOpen: boolean
  /** Consent dialogs this app opened within the window. */
  recentConsents: number
  /** Entrypoints enabled across the shell. */
  enabledCount: number
  /** Another app has an entrypoint of the same name enabled (the agent calls entrypoints by name). */
  nameTaken: boolean
}

/** May this request open the owner's consent dialog? `{ ask: false, already: true }` needs no dialog. */
export function decideAgentModeRequest(f: AgentModeRequestFacts, limits: AgentLimits = defaultAgentLimits()): { ask: true } | { ask: false; already: true } | ({ ask: false } & Refusal) {
  if (!f.declared.includes(f.entrypoint)) return { ask: false, code: 'PERMISSION_DENIED', message: `"${f.entrypoint}" is not an agent entrypoint of this app's manifest` }
  // The dialog is modal: while it is open no tile can be focused and clicked, so say why first.
  if (f.dialogOpen) return { ask: false, code: 'UI_BUSY', message: 'a consent dialog is open', retryAfterMs: LIMITS.uiBusyRetryAfterMs }
  if (!f.gesture.allow) return { ask: false, code: f.gesture.code, message: `agent.mode.request needs a click in the tile that asks: ${f.gesture.message}` }
  if (f.alreadyEnabled) return { ask: false, already: true }
  if (f.nameTaken) return { ask: false, code: 'AGENT_MODE_LIMIT', message: `another app's "${f.entrypoint}" is enabled; one entrypoint per name` }
  if (f.enabledCount >= limits.maxEnabled) return { ask: false, code: 'AGENT_MODE_LIMIT', message: `at most ${limits.maxEnabled} agent entrypoints enabled at once; disable one first` }
  if (f.recentConsents >= limits.consentsPerWindow) {
    return { ask: false, code: 'AGENT_CONSENT_LIMIT', message: `at most ${limits.consentsPerWindow} consent dialogs per app per ${limits.consentWindowMs / 1000} s`, retryAfterMs: limits.consentWindowMs }
  }
  return { ask: true }
}

export interface ScopedCallFacts {
  sourceApp: string
  /** The target's app, or 'kernel'. */
  targetApp: string
  targetKind: EndpointKind | 'kernel'
  /** For a kernel tool: it puts a dialog or a tile in front of the person, or acts as them (KernelTool.needsOwner). */
  needsOwner: boolean
  /** For a kernel tool: its name (for the message). */
  tool: string
  /** The caller's app holds a session grant on the target app (a one-call grant is the person's to spend, not the agent's). */
  sessionGrant: boolean
}

/** May a call made under an invocation capability go on? It never falls back to asking the person. */
export function decideScopedCall(f: ScopedCallFacts): { allow: true } | ({ allow: false } & Refusal) {
  if (f.targetKind === 'tray') return { allow: false, code: 'PERMISSION_DENIED', message: 'a tray never receives a call made for the agent' }
  if (f.targetApp === 'kernel') {
    if (f.needsOwner) return { allow: false, code: 'OWNER_REQUIRED', message: `${f.tool} needs the owner; a call made for the agent cannot open it`, retryAfterMs: LIMITS.ownerRequiredRetryAfterMs }
    return { allow: true }
  }
  if (f.targetApp === f.sourceApp || f.sessionGrant) return { allow: true }
  return { allow: false, code: 'OWNER_REQUIRED', message: `app "${f.sourceApp}" has no session grant for "${f.targetApp}"; the owner must grant it on the trusted page`, retryAfterMs: LIMITS.ownerRequiredRetryAfterMs }
}

/**
 * May an ordinary (unscoped) call from an endpoint of `sourceApp` go on? Calls within the app stay
 * allowed (they carry no authority the app lacks); leaving it while the app runs a call for the
 * agent is refused, app-wide, with no fallback to a dialog.
 */
export function decideGlobalCall(f: { sourceApp: string; targetApp: string; appHasActiveInvocation: boolean }): { allow: true } | ({ allow: false } & Refusal) {
  if (!f.appHasActiveInvocation || f.targetApp === f.sourceApp) return { allow: true }
  return { allow: false, code: 'SCOPED_CONTEXT_REQUIRED', message: `app "${f.sourceApp}" is running a call for the agent: make nested calls with that handler's context.kernel` }
}
