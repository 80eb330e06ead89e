import { describe, expect, it } from 'vitest'
import { decideAgentModeRequest, decideGlobalCall, decideScopedCall, defaultAgentLimits } from '../../../shell-web/kernel/agent/agent-policy.ts'
import type { GestureDecision } from '../../../shell-web/kernel/consent/gesture.ts'
import { acceptsPrivateAction } from '../../../shell-web/kernel/bus/policy.ts'
import { parseManifest } from '../../../shell-web/kernel/installs/manifest.ts'

const refused = (message: string): GestureDecision => ({ allow: false, code: 'USER_ACTIVATION_REQUIRED', message })
const ok = { gesture: { allow: true } as GestureDecision, declared: ['notes_search'], entrypoint: 'notes_search', alreadyEnabled: false, dialogOpen: false, recentConsents: 0, enabledCount: 0, nameTaken: false }

describe('agent.mode.request', () => {
  it('asks the owner only with the person’s gesture in the asking tile, for a declared entrypoint', () => {
    expect(decideAgentModeRequest(ok)).toEqual({ ask: true })
    expect(acceptsPrivateAction('tile-only', 'tray')).toBe(false)
    expect(acceptsPrivateAction('tile-only', 'background')).toBe(false)
    expect(acceptsPrivateAction('tile-only', 'tile')).toBe(true)
    expect(decideAgentModeRequest({ ...ok, entrypoint: 'notes_add' })).toMatchObject({ ask: false, code: 'PERMISSION_DENIED' })
    expect(decideAgentModeRequest({ ...ok, gesture: refused('not the frame the person is using') })).toMatchObject({ ask: false, code: 'USER_ACTIVATION_REQUIRED', message: expect.stringMatching(/not the frame/) })
    expect(decideAgentModeRequest({ ...ok, gesture: refused('no user activation') })).toMatchObject({ ask: false, code: 'USER_ACTIVATION_REQUIRED' })
    expect(decideAgentModeRequest({ ...ok, alreadyEnabled: true })).toEqual({ ask: false, already: true })
  })

  it('keeps the owner from being flooded: one dialog, a few per minute, a bounded number enabled, one per name', () => {
    const limits = defaultAgentLimits()
    expect(decideAgentModeRequest({ ...ok, dialogOpen: true, gesture: refused('only the focused tile may do this') })).toMatchObject({ code: 'UI_BUSY', retryAfterMs: expect.any(Number) })
    expect(decideAgentModeRequest({ ...ok, recentConsents: limits.consentsPerWindow })).toMatchObject({ code: 'AGENT_CONSENT_LIMIT', retryAfterMs: limits.consentWindowMs })
    expect(decideAgentModeRequest({ ...ok, enabledCount: limits.maxEnabled })).toMatchObject({ code: 'AGENT_MODE_LIMIT' })
    expect(decideAgentModeRequest({ ...ok, nameTaken: true })).toMatchObject({ code: 'AGENT_MODE_LIMIT' })
    expect(decideAgentModeRequest({ ...ok, enabledCount: 1 }, { ...limits, maxEnabled: 1 })).toMatchObject({ code: 'AGENT_MODE_LIMIT' })
  })
})

describe('calls made for the agent', () => {
  const scoped = { sourceApp: 'planner', targetApp: 'notes', targetKind: 'background' as const, tool: 'notes_search', needsOwner: false, sessionGrant: false }
  it('never fall back to asking the owner, and never reach a tray', () => {
    expect(decideScopedCall(scoped)).toMatchObject({ allow: false, code: 'OWNER_REQUIRED', retryAfterMs: expect.any(Number) })
    expect(decideScopedCall({ ...scoped, sessionGrant: true })).toEqual({ allow: true })
    expect(decideScopedCall({ ...scoped, targetApp: 'planner' })).toEqual({ allow: true })
    expect(decideScopedCall({ ...scoped, sessionGrant: true, targetKind: 'tray' })).toMatchObject({ allow: false, code: 'PERMISSION_DENIED' })
    // A kernel tool that needs the owner (a dialog, a tile, an effect as the person) is never reached for the agent.
    expect(decideScopedCall({ ...scoped, targetApp: 'kernel', targetKind: 'kernel', tool: 'permissions.request', needsOwner: true })).toMatchObject({ code: 'OWNER_REQUIRED', message: expect.stringMatching(/permissions.request/) })
    expect(decideScopedCall({ ...scoped, targetApp: 'kernel', targetKind: 'kernel', tool: 'canister.schema' })).toEqual({ allow: true })
    expect(decideScopedCall({ ...scoped, targetApp: 'kernel', targetKind: 'kernel', tool: 'apps.list' })).toEqual({ allow: true })
  })

  it('the global client may not leave an app that runs a call for the agent', () => {
    expect(decideGlobalCall({ sourceApp: 'planner', targetApp: 'notes', appHasActiveInvocation: true })).toMatchObject({ allow: false, code: 'SCOPED_CONTEXT_REQUIRED' })
    expect(decideGlobalCall({ sourceApp: 'planner', targetApp: 'kernel', appHasActiveInvocation: true })).toMatchObject({ allow: false, code: 'SCOPED_CONTEXT_REQUIRED' })
    expect(decideGlobalCall({ sourceApp: 'planner', targetApp: 'planner', appHasActiveInvocation: true })).toEqual({ allow: true })
    expect(decideGlobalCall({ sourceApp: 'planner', targetApp: 'notes', appHasActiveInvocation: false })).toEqual({ allow: true })
  })
})

describe('manifest agent entrypoints', () => {
  const base = { id: 'notes', version: '1.0.0', title: 'Notes', entries: { background: '/apps/notes/background' }, tools: ['notes_search'] }
  it('are declared tools of an app with a resident background; "agent" is no app id', () => {
    expect(parseManifest({ ...base, agentEntrypoints: ['notes_search'] }).agentEntrypoints).toEqual(['notes_search'])
    expect(parseManifest(base).agentEntrypoints).toEqual([])
    expect(() => parseManifest({ ...base, agentEntrypoints: ['notes_add'] })).toThrow(/declared tools/)
    expect(() => parseManifest({ ...base, entries: { tile: '/apps/notes/tile' }, agentEntrypoints: ['notes_search'] })).toThrow(/resident background/)
    expect(() => parseManifest({ ...base, id: 'agent' })).toThrow(/agent caller/)
  })
})
