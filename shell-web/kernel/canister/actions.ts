/**
 * The private actions of app backends: not tools, so absent from discovery, cross-app routing,
 * agent tool selection and what an app or a model can read of the audit (a refusal is kept for
 * the person only, and a connection's payload never reaches it). Each acts for the sender's own
 * app, derived from its port; nothing names an app or a person.
 *
 * - `canister.query_self` / `canister.update_self { method, input }` — any endpoint of the app,
 *   its own backend, preapproved (no dialog). The server checks the method is of that kind in the
 *   installed interface before anything runs, and checks input and output against it. An
 *   attachment beside it (≤ 160 KiB) reaches the backend as `input.attachment`, base64url.
 * - `connections.get { name }` / `.set { name, secret }` / `.list {}` / `.delete { name }` — the
 *   exact current background of the app only. The secret comes back only on that background's own
 *   port, as the answer to its own request: never as progress, never in the audit.
 * - `vetkeys.derive { derivationPath, transportPublicKey }` — a path the manifest declares, from the
 *   app's background or its focused tile (a tray cannot derive); the answer is the key encrypted
 *   to the transport key the app supplied (the server's `{ ephemeralPublicKey, iv, ciphertext,
 *   boundTo }`), so the kernel never holds the key in the clear.
 *
 * @example
 * const { output } = await transport.request('canister.query_self', { method: 'count', input: {} })
 */
import { type ServerPort, onServer } from './server.ts'
import type { Endpoint, Endpoints } from '../bus/endpoints.ts'
import type { Gestures } from '../consent/gesture.ts'
import type { AppManifest } from '../installs/manifest.ts'
import type { PrivateAction } from '../consent/private-actions.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { hasExactKeys, isRecord } from '../../protocol/envelope.ts'
import { LIMITS } from '../../protocol/limits.ts'

export interface CanisterActionDeps {
  server: ServerPort
  endpoints: Endpoints
  manifest(app: string): AppManifest | undefined
  /** Is the person using the sender's tile right now (gesture.ts). */
  gestures: Pick<Gestures, 'check'>
}

const METHOD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const CONNECTION = /^[A-Za-z0-9_-]{1,64}$/

export function createCanisterActions(deps: CanisterActionDeps): [string, PrivateAction][] {
  const { server } = deps
  const self = (kind: 'query' | 'update'): PrivateAction => ({
    rule: 'any-endpoint-of-app',
    attachments: true,
    run(ep, p, attachment) {
      if (!isRecord(p) || !hasExactKeys(p, ['method', 'input']) || typeof p.method !== 'string' || !METHOD.test(p.method)) {
        return { error: fail('BAD_REQUEST', `canister.${kind}_self takes exactly { method, input }`) }
      }
      const { method } = p
      const input = attachment ? attachedInput(p.input, attachment) : { ok: p.input }
      if ('error' in input) return input
      return onServer(server, ep.app, (installation) => installation.call(method, input.ok, { kind }))
    },
  })

  /** The app's current background, and only it: a reloaded or replaced one's old port is refused. */
  const background = (ep: Endpoint) => (deps.endpoints.get(ep.id) === ep ? null : { error: fail('PERMISSION_DENIED', 'only the live background of the app') })
  const name = (p: unknown, keys: string[]) => (isRecord(p) && hasExactKeys(p, keys) && typeof p.name === 'string' && CONNECTION.test(p.name) ? p.name : null)
  const connection = (keys: string[], run: (ep: Endpoint, p: Record<string, unknown>, name: string) => ReturnType<PrivateAction['run']>): PrivateAction => ({
    rule: 'background-only',
    redact: true,
    run(ep, p) {
      const refused = background(ep)
      if (refused) return refused
      const named = keys.includes('name') ? name(p, keys) : isRecord(p) && hasExactKeys(p, keys) ? '' : null
      if (named === null) return { error: fail('BAD_REQUEST', `expected exactly { ${keys.join(', ')} }; names are 1–64 of [A-Za-z0-9_-]`) }
      return run(ep, p as Record<string, unknown>, named)
    },
  })

  const derive: PrivateAction = {
    rule: 'tile-or-background',
    async run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, ['derivationPath', 'transportPublicKey']) || typeof p.derivationPath !== 'string' || !isRecord(p.transportPublicKey)) {
        return { error: fail('BAD_REQUEST', 'vetkeys.derive takes exactly { derivationPath, transportPublicKey }') }
      }
      const { derivationPath, transportPublicKey } = p
      if (!deps.manifest(ep.app)?.vetkeys.includes(derivationPath)) return { error: fail('PERMISSION_DENIED', `the manifest of "${ep.app}" does not declare the derivation path ${JSON.stringify(derivationPath.slice(0, 64))}`) }
      if (ep.kind === 'tile') {
        // A key's lifecycle is the person's: from a tile, only the one they are using.
        const gesture = await deps.gestures.check(ep, { activation: false })
        if (!gesture.allow) return { error: fail(gesture.code, gesture.message) }
      }
      return onServer(server, ep.app, (installation) => installation.deriveKey({ derivationPath, transportPublicKey: transportPublicKey as never }))
    },
  }

  return [
    ['canister.query_self', self('query')],
    ['canister.update_self', self('update')],
    ['connections.get', connection(['name'], (ep, _p, n) => onServer(server, ep.app, (installation) => installation.revealConnection(n)))],
    ['connections.set', connection(['name', 'secret'], (ep, p, n) => (typeof p.secret === 'string' ? onServer(server, ep.app, (installation) => installation.setConnection(n, p.secret as string)) : { error: fail('BAD_REQUEST', 'secret is a string') }))],
    ['connections.list', connection([], (ep) => onServer(server, ep.app, async (installation) => ({ connections: await installation.connections() })))],
    ['connections.delete', connection(['name'], (ep, _p, n) => onServer(server, ep.app, (installation) => installation.deleteConnection(n)))],
    ['vetkeys.derive', derive],
  ]
}

/**
 * The input a backend receives for a call with an attachment: the app's input object plus
 * `attachment`, the bytes as base64url text, checked against the installed schema like any input
 * (the method declares `attachment: { type: 'string' }`).
 *
 * @example
 * attachedInput({ name: 'a.png' }, bytes) // { ok: { name: 'a.png', attachment: 'iVBORw0…' } }
 */
export function attachedInput(input: unknown, attachment: ArrayBuffer): { ok: Record<string, unknown> } | { error: BusErrorShape } {
  if (!isRecord(input) || 'attachment' in input) return { error: fail('BAD_REQUEST', 'with an attachment, input is an object without its own "attachment" key') }
  if (attachment.byteLength > LIMITS.maxBackendAttachmentBytes) {
    return { error: fail('ATTACHMENT_TOO_LARGE', `an attachment to a backend is at most ${LIMITS.maxBackendAttachmentBytes} bytes; this one has ${attachment.byteLength}`) }
  }
  return { ok: { ...input, attachment: base64url(new Uint8Array(attachment)) } }
}

function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}
