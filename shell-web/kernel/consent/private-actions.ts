/**
 * Private actions: transport control that travels on the same port but is not
 * a tool — absent from discovery, cross-app routing and the audit of calls
 * (only refusals are audited). Each names exactly which endpoints may send it.
 * The ones the trusted page performs (tray, clipboard, wallet) are in
 * page-actions.ts, agent.mode.* in agent-actions.ts, canister.*_self, connections.* and
 * vetkeys.* in canister/actions.ts.
 *
 * @example
 * // an endpoint registering a tool it exposes
 * { type: 'exec', id: 1, payload: { action: 'tools.expose', payload: { name, title, description, inputSchema, outputSchema } } }
 */
import { ATTACHMENTS_ANNOTATION } from '../bus/attachments.ts'
import type { Outcome } from '../bus/calls.ts'
import type { Endpoint, Endpoints } from '../bus/endpoints.ts'
import type { AppManifest } from '../installs/manifest.ts'
import type { PrivateActionRule } from '../bus/policy.ts'
import { fail } from '../../protocol/codes.ts'
import { TOOL_NAME, type ToolDescriptor, hasExactKeys, isRecord } from '../../protocol/envelope.ts'
import { LIMITS } from '../../protocol/limits.ts'
import { checkSchema, compileSchema } from '../../protocol/schema.ts'

export interface PrivateAction {
  rule: PrivateActionRule
  /** Its payload carries a secret (connections.set): a refusal's audit entry leaves the payload out. */
  redact?: true
  /** It takes an attachment beside its payload (canister.*_self); every other action refuses one. */
  attachments?: true
  /**
   * It acts as the person (the clipboard, the wallet, Agent Mode's consent): it needs their gesture
   * in the sender's frame. Like every private action it never runs under an invocation capability;
   * the flag is the owner table's (Kernel.ownerTable), shared with the kernel tools.
   */
  needsOwner?: true
  /** A promise for an effect the trusted page performs (clipboard, wallet), a decision the person makes (agent.mode.request) or the server's answer; answered when it settles. */
  run(ep: Endpoint, payload: unknown, attachment?: ArrayBuffer): Outcome | Promise<Outcome>
}

const TOPIC = /^[A-Za-z0-9_.:-]{1,64}$/

export function createPrivateActions(deps: { endpoints: Endpoints; manifest(app: string): AppManifest | undefined }): Map<string, PrivateAction> {
  const expose: PrivateAction = {
    rule: 'any-endpoint-of-app',
    run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, ['name', 'title', 'description', 'inputSchema', 'outputSchema'], ['annotations'])) {
        return { error: fail('BAD_REQUEST', 'a tool is { name, title, description, inputSchema, outputSchema, annotations? }') }
      }
      const annotations = p.annotations
      if (annotations !== undefined && !(isRecord(annotations) && hasExactKeys(annotations, [], [ATTACHMENTS_ANNOTATION]) && ['boolean', 'undefined'].includes(typeof annotations[ATTACHMENTS_ANNOTATION]))) {
        return { error: fail('BAD_REQUEST', `annotations are { "${ATTACHMENTS_ANNOTATION}"?: boolean }`) }
      }
      const { name, title, description, inputSchema, outputSchema } = p
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) return { error: fail('BAD_REQUEST', `tool names match ${TOOL_NAME}`) }
      if (typeof title !== 'string' || title.length > LIMITS.maxTitleChars) return { error: fail('BAD_REQUEST', 'bad title') }
      if (typeof description !== 'string' || description.length > LIMITS.maxDescriptionChars) return { error: fail('BAD_REQUEST', 'bad description') }
      if (!deps.manifest(ep.app)?.tools.includes(name)) return { error: fail('TOOL_NOT_DECLARED', `the manifest of "${ep.app}" does not declare ${name}`) }
      if (!ep.tools.has(name) && ep.tools.size >= LIMITS.maxToolsPerEndpoint) return { error: fail('LIMIT_REACHED', 'too many tools') }
      for (const [which, schema] of [['inputSchema', inputSchema], ['outputSchema', outputSchema]] as const) {
        const issue = checkSchema(schema)
        if (issue) return { error: fail('SCHEMA_REJECTED', `${which} ${issue}`) }
      }
      const descriptor = p as unknown as ToolDescriptor
      ep.tools.set(name, { descriptor, key: JSON.stringify(descriptor), validateInput: compileSchema(inputSchema), validateOutput: compileSchema(outputSchema) })
      deps.endpoints.settled(ep)
      return { ok: {} }
    },
  }
  const remove: PrivateAction = {
    rule: 'any-endpoint-of-app',
    run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, ['name']) || typeof p.name !== 'string') return { error: fail('BAD_REQUEST', 'expected { name }') }
      return { ok: { removed: ep.tools.delete(p.name) } }
    },
  }
  const publish: PrivateAction = {
    rule: 'any-endpoint-of-app',
    run(ep, p) {
      // The payload names no app: the namespace is the sender's own app, derived from its port.
      if (!isRecord(p) || !hasExactKeys(p, ['topic', 'revision'])) return { error: fail('BAD_REQUEST', 'expected exactly { topic, revision }') }
      const { topic, revision } = p
      if (typeof topic !== 'string' || !TOPIC.test(topic)) return { error: fail('BAD_REQUEST', `topics match ${TOPIC}`) }
      if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) return { error: fail('BAD_REQUEST', 'revision is a non-negative integer') }
      let delivered = 0
      for (const other of deps.endpoints.ofApp(ep.app)) {
        if (other === ep) continue
        other.post({ type: 'event', payload: { action: 'app.state.changed', payload: { topic, revision } } })
        delivered++
      }
      return { ok: { delivered } }
    },
  }
  return new Map([
    ['tools.expose', expose],
    ['tools.remove', remove],
    ['app.state.publish', publish],
  ])
}

