/**
 * Agent Mode's private actions: an app asks the owner to enable one of its
 * declared entrypoints for the agent, and sees or ends what is enabled for it.
 * Like every private action they are not tools: absent from discovery, from
 * routing and from what the model can read.
 *
 * - `agent.mode.request { entrypoint }` — a tile only, during a click or key press in it
 *   (gesture.ts); the trusted page draws the consent dialog. Answers `{ enabled: true, app,
 *   version, entrypoint }`, or USER_ACTIVATION_REQUIRED, UI_BUSY, AGENT_MODE_LIMIT, AGENT_CONSENT_LIMIT, AGENT_CONSENT_DENIED,
 *   AGENT_CONSENT_TIMEOUT.
 * - `agent.mode.status {}` — any endpoint of the app: `{ enabled: [{ entrypoint, version }] }`.
 * - `agent.mode.disable { entrypoint? }` — any endpoint of the app: `{ disabled: [names] }`.
 *
 * @example
 * button.onclick = () => bus.requestAgentMode('notes_search') // synchronously, inside the click
 */
import { type AgentMode } from './agent-mode.ts'
import { decideAgentModeRequest } from './agent-policy.ts'
import type { DialogGate } from '../consent/dialog-gate.ts'
import type { Gestures } from '../consent/gesture.ts'
import type { AppManifest } from '../installs/manifest.ts'
import type { PrivateAction } from '../consent/private-actions.ts'
import { fail } from '../../protocol/codes.ts'
import { TOOL_NAME, hasExactKeys, isRecord } from '../../protocol/envelope.ts'

export interface AgentActionDeps {
  agentMode: AgentMode
  manifest(app: string): AppManifest | undefined
  /** Is the person using the sender's tile right now (see gesture.ts). */
  gestures: Pick<Gestures, 'check'>
  /** An app whose last dialogs the owner dismissed waits before asking again (dialog-gate.ts). */
  gate: DialogGate
}

export function createAgentActions(deps: AgentActionDeps): [string, PrivateAction][] {
  const { agentMode } = deps
  const request: PrivateAction = {
    rule: 'tile-only',
    needsOwner: true,
    async run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, ['entrypoint']) || typeof p.entrypoint !== 'string' || !TOOL_NAME.test(p.entrypoint)) {
        return { error: fail('BAD_REQUEST', 'agent.mode.request takes exactly { entrypoint }') }
      }
      const manifest = deps.manifest(ep.app)
      if (!manifest) return { error: fail('PERMISSION_DENIED', 'the app is not installed') }
      const entrypoint = p.entrypoint
      const decision = decideAgentModeRequest(
        {
          gesture: await deps.gestures.check(ep),
          declared: manifest.agentEntrypoints,
          entrypoint,
          alreadyEnabled: agentMode.isEnabled(ep.app, manifest.version, entrypoint),
          dialogOpen: !!agentMode.pending(),
          recentConsents: agentMode.recentConsents(ep.app),
          enabledCount: agentMode.enabled().length,
          nameTaken: agentMode.find(entrypoint)?.app !== undefined && agentMode.find(entrypoint)?.app !== ep.app,
        },
        agentMode.limits,
      )
      const enabled = { ok: { enabled: true, app: ep.app, version: manifest.version, entrypoint } }
      if (!decision.ask) return 'already' in decision ? enabled : { error: fail(decision.code, decision.message, decision.retryAfterMs) }
      const backingOff = deps.gate.admitChecked(ep.app)
      if (backingOff) return { error: fail('AGENT_CONSENT_DENIED', backingOff.message, backingOff.retryAfterMs) }
      const answer = await agentMode.ask({ app: ep.app, version: manifest.version, title: manifest.title, entrypoint, endpoint: ep.id })
      if (answer !== 'withdrawn') deps.gate.answered(ep.app, answer === 'allow')
      if (answer === 'allow') return enabled
      if (answer === 'deny') return { error: fail('AGENT_CONSENT_DENIED', 'the owner declined') }
      if (answer === 'timeout') return { error: fail('AGENT_CONSENT_TIMEOUT', `the owner did not answer within ${agentMode.limits.consentTimeoutMs / 1000} s`) }
      return { error: fail('CANCELLED', 'the request was withdrawn') }
    },
  }
  const status: PrivateAction = {
    rule: 'any-endpoint-of-app',
    run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, [])) return { error: fail('BAD_REQUEST', 'agent.mode.status takes {}') }
      return { ok: { enabled: agentMode.enabled(ep.app).map(({ entrypoint, version }) => ({ entrypoint, version })) } }
    },
  }
  const disable: PrivateAction = {
    rule: 'any-endpoint-of-app',
    run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, [], ['entrypoint']) || (p.entrypoint !== undefined && typeof p.entrypoint !== 'string')) {
        return { error: fail('BAD_REQUEST', 'agent.mode.disable takes { entrypoint? }') }
      }
      const ended = agentMode.disable(ep.app, p.entrypoint as string | undefined, `disabled by ${ep.id}`)
      return { ok: { disabled: ended.map((e) => e.entrypoint) } }
    },
  }
  return [
    ['agent.mode.request', request],
    ['agent.mode.status', status],
    ['agent.mode.disable', disable],
  ]
}
