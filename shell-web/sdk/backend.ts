/**
 * An app's backend from its frames: its own backend on the same-app wire (preapproved, not a
 * tool), its connections (the app's background only) and its derived keys. None of these is
 * discoverable or callable by another app; each acts for this frame's own app, as the person
 * signed in on the shell (SIGN_IN_REQUIRED otherwise). Calls on the person's behalf into another
 * app (`canister.call_dialog`) and outbound grants (`backend_calls.*`) are kernel tools: use
 * `callTool({ target: 'kernel', … })`.
 *
 * @example
 * const { output } = await canister.querySelf<{ count: number }>('count', {})
 * await canister.updateSelf('store', { name: 'a.png' }, { attachment: bytes }) // the backend gets input.attachment
 * const { secret } = await connections.get('imap')                      // background only
 * const sealed = await vetkeys.derive('notes/v1', transportPublicKeyJwk) // a declared path
 */
import { Transport } from './transport.ts'

const send = <O>(action: string, payload: object, options: SelfOptions = {}): Promise<O> => Transport.shared().request(action, payload, options) as Promise<O>

/** An attachment (≤ 160 KiB, transferred: detached here) arrives in the backend as `input.attachment`, base64url. */
export interface SelfOptions {
  attachment?: ArrayBuffer
}

/** The app's own backend: a query reads, an update appends; a method of the other kind is refused. */
export const canister = {
  querySelf: <O = unknown>(method: string, input: unknown, options: SelfOptions = {}) => send<{ output: O }>('canister.query_self', { method, input }, options),
  updateSelf: <O = unknown>(method: string, input: unknown, options: SelfOptions = {}) => send<{ output: O }>('canister.update_self', { method, input }, options),
}

/** The person's credentials for external services, per app: only the app's live background may use them. */
export const connections = {
  get: (name: string) => send<{ name: string; secret: string }>('connections.get', { name }),
  set: (name: string, secret: string) => send<{ name: string; setAt: string }>('connections.set', { name, secret }),
  list: () => send<{ connections: { name: string; setAt: string }[] }>('connections.list', {}),
  delete: (name: string) => send<{ name: string; deleted: boolean }>('connections.delete', { name }),
}

/** The key of (person, app, path), encrypted to the P-256 transport key the app supplies (a JWK). */
export const vetkeys = {
  derive: (derivationPath: string, transportPublicKey: { kty: 'EC'; crv: 'P-256'; x: string; y: string }) =>
    send<{ ephemeralPublicKey: JsonWebKey; iv: string; ciphertext: string; boundTo: string }>('vetkeys.derive', { derivationPath, transportPublicKey }),
}
