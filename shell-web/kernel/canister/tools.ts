/**
 * The discoverable kernel tools of app backends (target `kernel`):
 *
 * - `canister.schema { app?, method }` — the installed interface of a method of the signed-in
 *   person's installation of `app` (default: the caller's own app): `{ app, version, method, kind,
 *   input, output }`. The kernel always reads schemas from the installed interface; no call takes
 *   a schema from an app.
 * - `canister.call_dialog { app, method, input }` — an update call on the person's behalf: the
 *   input is checked against the installed schema, then the trusted page draws the consent (the
 *   method, the app, a summary of the input); only 'allow' runs it. Refusal is CONSENT_DENIED and
 *   nothing is called; one dialog at a time (UI_BUSY).
 * - `backend_calls.request { origin, release? }` — reserve (after the person's consent) or release
 *   a persistent outbound grant for the caller's own app's backend.
 * - `backend_calls.list {}` — the caller's own app's granted origins.
 *
 * Which installation is reached comes from the caller's endpoint (its app) or the named app of the
 * signed-in person; nothing names a person.
 *
 * @example
 * await bus.callTool({ target: 'kernel', name: 'canister.call_dialog', arguments: { app: 'counter', method: 'increment', input: { by: 2 } } })
 */
import type { BackendConsent, BackendConsentAnswer } from './consent.ts'
import type { DialogGate } from '../consent/dialog-gate.ts'
import { SIGN_IN_REQUIRED, type ServerPort, onServer } from './server.ts'
import type { Outcome } from '../bus/calls.ts'
import { APP, type KernelTool, OBJECT, tool } from '../bus/kernel-tools.ts'
import type { AppManifest } from '../installs/manifest.ts'
import { summarize } from '../bus/summary.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'
import { compileSchema } from '../../protocol/schema.ts'
import { checkValue } from '../bus/broker.ts'

export interface CanisterToolDeps {
  server: ServerPort
  consent: BackendConsent
  /** A consent dialog needs the person's gesture in the asking app, and not one just dismissed (dialog-gate.ts). */
  gate: DialogGate
  manifest(app: string): AppManifest | undefined
}

const METHOD = { type: 'string', minLength: 1, maxLength: 64 }

/** The answer for a consent that did not end in 'allow'. */
function refused(answer: Exclude<BackendConsentAnswer, 'allow'>): { error: BusErrorShape } {
  if (answer === 'deny') return { error: fail('CONSENT_DENIED', 'the person declined; nothing was called') }
  if (answer === 'timeout') return { error: fail('TIMEOUT', 'the person did not answer; nothing was called') }
  return { error: fail('CANCELLED', 'the request was withdrawn; nothing was called') }
}

/** An http(s) origin, or null. */
function originOf(value: string): string | null {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password ? url.origin : null
  } catch {
    return null
  }
}

export function createCanisterTools(deps: CanisterToolDeps): [string, KernelTool][] {
  const { server, consent } = deps
  const title = (app: string) => deps.manifest(app)?.title ?? app
  /** The installed interface of `method` in `app`, read from the server every time (never cached, never from the app). */
  const methodOf = async (app: string, method: string): Promise<Outcome> => {
    const view = await onServer(server, app, (installation) => installation.view())
    if ('error' in view) return view
    const installed = view.ok as { app: string; version: string; methods: Record<string, { kind: 'query' | 'update'; input?: unknown; output?: unknown }> }
    const spec = Object.hasOwn(installed.methods, method) ? installed.methods[method] : undefined
    if (!spec) return { error: fail('UNKNOWN_TOOL', `${app} ${installed.version} has no method ${method}`) }
    return { ok: { app: installed.app, version: installed.version, method, kind: spec.kind, input: spec.input ?? {}, output: spec.output ?? {} } }
  }
  const busy = () => ({ error: fail('UI_BUSY', 'another consent dialog is open', LIMITS.uiBusyRetryAfterMs) })
  const ask = async (subject: Parameters<BackendConsent['ask']>[0], signal: AbortSignal): Promise<BackendConsentAnswer | { error: BusErrorShape }> => {
    // Said first: while a dialog is open nobody can be using an app, so the gesture check would only hide why.
    if (consent.pending()) return busy()
    const refused = await deps.gate.admit(subject.callerApp)
    if (refused) return { error: refused.code === 'BACKING_OFF' ? fail('CONSENT_DENIED', refused.message, refused.retryAfterMs) : refused }
    const pending = consent.ask(subject, signal)
    if (pending === 'busy') return busy()
    const answer = await pending
    if (answer !== 'withdrawn') deps.gate.answered(subject.callerApp, answer === 'allow')
    return answer
  }

  const tools = [
    tool<{ app?: string; method: string }>('canister.schema', 'Method schema', "The installed interface of a backend method (the kernel's, never the app's).", OBJECT({ app: APP, method: METHOD }, ['method']), (caller, { app, method }) =>
      methodOf(app ?? caller.app, method),
    ),
    tool<{ app: string; method: string; input: unknown }>(
      'canister.call_dialog',
      'Call with consent',
      "Run an app backend's update method on the person's behalf, after the person agrees in a dialog the trusted page draws.",
      OBJECT({ app: APP, method: METHOD, input: {} }, ['app', 'method', 'input']),
      async (caller, { app, method, input }, signal) => {
        const found = await methodOf(app, method)
        if ('error' in found) return found
        const spec = found.ok as { kind: string; input: unknown; version: string }
        if (spec.kind !== 'update') return { error: fail('BAD_REQUEST', `${app}.${method} is a query: it needs no consent (an app reads its own backend with canister.query_self)`) }
        const issue = checkValue(compileSchema(spec.input), input, 'input')
        if (issue) return { error: issue }
        const answer = await ask({ kind: 'call', app, title: title(app), method, summary: summarize(input, LIMITS.maxConsentSummaryChars), caller: caller.id, callerApp: caller.app }, signal)
        if (typeof answer !== 'string') return answer
        if (answer !== 'allow') return refused(answer)
        return onServer(server, app, (installation) => installation.call(method, input, { kind: 'update' }))
      },
      { waitsForPerson: true, needsOwner: true },
    ),
    tool<{ origin: string; release?: boolean }>(
      'backend_calls.request',
      'Reserve or release an origin',
      "Ask the person to let this app's backend reach an origin (persistent), or release one.",
      OBJECT({ origin: { type: 'string', minLength: 1, maxLength: 2048 }, release: { type: 'boolean' } }, ['origin']),
      async (caller, { origin, release }, signal) => {
        const normalized = originOf(origin)
        if (!normalized) return { error: fail('BAD_REQUEST', 'origin must be an http(s) URL or origin without credentials') }
        if (release) return onServer(server, caller.app, (installation) => installation.revoke(normalized))
        // Nobody to act for: say so before asking the person anything.
        if (!server()) return { error: SIGN_IN_REQUIRED }
        const answer = await ask({ kind: 'origin', app: caller.app, title: title(caller.app), origin: normalized, caller: caller.id, callerApp: caller.app }, signal)
        if (typeof answer !== 'string') return answer
        if (answer !== 'allow') return refused(answer)
        return onServer(server, caller.app, (installation) => installation.grant(normalized))
      },
      { waitsForPerson: true, needsOwner: true },
    ),
    tool('backend_calls.list', 'Granted origins', "The origins this app's backend may reach.", OBJECT({}), async (caller) => {
      const grants = await onServer(server, caller.app, (installation) => installation.grants())
      return 'error' in grants ? grants : { ok: { grants: grants.ok } }
    }),
  ]
  return tools.map((t) => [t.descriptor.name, t])
}
