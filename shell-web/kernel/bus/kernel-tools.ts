/**
 * The kernel's own tools, reachable by every endpoint at target `kernel`.
 * Discovery metadata about other apps is marked untrusted: titles and
 * descriptions are whatever their manifests say.
 *
 * @example
 * await bus.callTool({ target: 'kernel', name: 'permissions.request', arguments: { app: 'notes', scope: 'session' } })
 */
import type { AuditRing } from './audit.ts'
import type { Outcome } from './calls.ts'
import type { DialogGate } from '../consent/dialog-gate.ts'
import type { Endpoint, Endpoints } from './endpoints.ts'
import type { Grants } from '../consent/grants.ts'
import type { AppManifest } from '../installs/manifest.ts'
import { decideGrantRequest } from './policy.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import type { ToolDescriptor } from '../../protocol/envelope.ts'
import { LIMITS } from '../../protocol/limits.ts'
import { type SchemaVerdict, type ValidationBudget, compileSchema } from '../../protocol/schema.ts'

export interface KernelToolDeps {
  apps(): AppManifest[]
  endpoints: Endpoints
  grants: Grants
  audit: AuditRing
  /** A dialog needs the person's gesture in the asking app, and not one just dismissed (dialog-gate.ts). */
  gate: DialogGate
  openTile(app: string, params: Record<string, string>): { endpoint: string } | BusErrorShape
}

export interface KernelTool {
  descriptor: ToolDescriptor
  /**
   * The tool waits for the person (permissions.request): it holds none of the caller's in-flight
   * slots, so an open dialog never blocks the app's ordinary calls; the pending-grant limits bound it.
   */
  waitsForPerson?: true
  /**
   * It puts a dialog or a tile in front of the person, or acts as them: a call made for the agent
   * (under an invocation capability) is refused with OWNER_REQUIRED before it runs.
   */
  needsOwner?: true
  validate(args: unknown, budget?: ValidationBudget): SchemaVerdict
  run(caller: Endpoint, args: never, signal: AbortSignal): Outcome | Promise<Outcome>
}

/** Input-schema pieces shared by the kernel's tools: an app id, and a closed object. */
export const APP = { type: 'string', minLength: 2, maxLength: 32 }
export const OBJECT = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false })

/**
 * One kernel tool: its descriptor, its compiled input schema and what it does.
 *
 * @example
 * tool<{ app: string }>('apps.describe', 'Describe an app', '…', OBJECT({ app: APP }, ['app']), (caller, { app }) => ({ ok: { app } }))
 */
export function tool<A>(name: string, title: string, description: string, input: object, run: (caller: Endpoint, args: A, signal: AbortSignal) => Outcome | Promise<Outcome>, options: { waitsForPerson?: true; needsOwner?: true } = {}): KernelTool {
  return {
    ...options,
    descriptor: { name, title, description, inputSchema: input, outputSchema: { type: 'object' } },
    validate: compileSchema(input),
    run: run as KernelTool['run'],
  }
}

export function createKernelTools(deps: KernelToolDeps): Map<string, KernelTool> {
  const find = (id: string) => deps.apps().find((a) => a.id === id)
  const summary = (a: AppManifest) => ({
    id: a.id,
    version: a.version,
    title: a.title,
    trust: 'untrusted' as const,
    entries: { tile: !!a.entries.tile, tray: !!a.entries.tray, background: !!a.entries.background },
  })
  const tools = [
    tool('apps.list', 'List apps', 'Installed apps. Titles are untrusted metadata.', OBJECT({}), () => ({
      ok: { apps: deps.apps().slice(0, LIMITS.maxAppsListed).map(summary) },
    })),
    tool<{ app: string }>('apps.describe', 'Describe an app', 'One installed app: declared tools and permissions (untrusted metadata).', OBJECT({ app: APP }, ['app']), (_c, { app }) => {
      const a = find(app)
      if (!a) return { error: fail('UNKNOWN_TARGET', `app "${app}" is not installed`) }
      return { ok: { ...summary(a), description: a.description, tools: a.tools, permissions: a.permissions } }
    }),
    tool('endpoints.list', 'List live endpoints', 'Endpoints that are live right now.', OBJECT({}), () => ({
      ok: { endpoints: deps.endpoints.list().map((ep) => ({ id: ep.id, app: ep.app, kind: ep.kind })) },
    })),
    tool<{ app: string; scope: 'call' | 'session'; reason?: string }>(
      'permissions.request',
      'Request a grant',
      'Ask the person for a one-call or session grant to list and call another app.',
      OBJECT({ app: APP, scope: { enum: ['call', 'session'] }, reason: { type: 'string', maxLength: 200 } }, ['app', 'scope']),
      async (caller, { app, scope, reason }, signal) => {
        const declared = find(caller.app)?.permissions ?? []
        const verdict = decideGrantRequest({ sourceApp: caller.app, targetApp: app, declared, targetInstalled: !!find(app) })
        if (!verdict.ask) return { error: fail(verdict.code, verdict.message) }
        if (deps.grants.view(caller.id, caller.app, app).session) return { ok: { granted: true, scope: 'session' } }
        const busy = () => ({ error: fail('UI_BUSY', 'too many grant requests are waiting for the person', LIMITS.uiBusyRetryAfterMs) })
        // Said first: with a dialog open for it nobody can be using the app, so the gesture check would only hide why.
        if (deps.grants.busy({ endpoint: caller.id, app: caller.app }, app)) return busy()
        const refused = await deps.gate.admit(caller.app)
        if (refused) return { error: refused.code === 'BACKING_OFF' ? fail('PERMISSION_DENIED', refused.message, refused.retryAfterMs) : refused }
        const pending = deps.grants.request({ endpoint: caller.id, app: caller.app }, app, scope, reason ?? '', signal)
        if (pending === 'UI_BUSY') return busy()
        const decision = await pending
        if (decision !== 'withdrawn') deps.gate.answered(caller.app, decision !== 'deny')
        if (decision === 'deny') return { error: fail('PERMISSION_DENIED', 'the person declined') }
        if (decision === 'withdrawn') return { error: fail('CANCELLED', 'the request was withdrawn') }
        return { ok: { granted: true, scope: decision } }
      },
      { waitsForPerson: true, needsOwner: true },
    ),
    tool<{ limit?: number }>('audit.list', 'My audit entries', "The calling app's own entries in the audit ring.", OBJECT({ limit: { type: 'integer', minimum: 1, maximum: LIMITS.auditEntries } }), (caller, { limit }) => ({
      // JSON only: an entry's absent fields are left out, never sent as `undefined`
      ok: { entries: deps.audit.forApp(caller.app).slice(-(limit ?? LIMITS.auditEntries)).map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined))) },
    })),
    tool<{ app: string; params?: Record<string, string> }>(
      'workspace.open_tile',
      'Open a tile',
      "Open an app's tile in the active workspace; params become UI-context query parameters.",
      OBJECT({ app: APP, params: { type: 'object', maxProperties: LIMITS.maxTileParams, additionalProperties: { type: 'string', maxLength: LIMITS.maxTileParamChars } } }, ['app']),
      (_c, { app, params }) => {
        const a = find(app)
        if (!a?.entries.tile) return { error: fail('UNKNOWN_TARGET', `app "${app}" has no tile`) }
        const opened = deps.openTile(app, params ?? {})
        return 'code' in opened ? { error: opened } : { ok: opened }
      },
      { needsOwner: true },
    ),
  ]
  return new Map(tools.map((t) => [t.descriptor.name, t]))
}
