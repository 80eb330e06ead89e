/**
 * `vetkeys.*`: a key per (person, app, derivation path), derived on the server
 * with HKDF-SHA-256 from the deployment master secret `VETKEYS_SECRET`, and
 * delivered encrypted to a transport public key the caller supplies (ECDH
 * P-256 with a fresh ephemeral key, HKDF, AES-GCM; the person, app and path
 * are bound in as additional data). The same inputs always give the same key;
 * another app, person or path gives an unrelated one.
 *
 * What this is not: a threshold-derived key. Whoever holds `VETKEYS_SECRET` (the
 * deployment's operator, or anyone who reads its secrets) can derive every key;
 * the promise is only that the key leaves the server encrypted to the
 * transport key, and that apps cannot derive each other's keys through the API.
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { canonicalJson } from '../ledger/json.ts'

const P256_COORDINATE = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url P-256 coordinate')

/** The body of `POST /v1/apps/installs/{app}/vetkeys`. */
export const VetkeyRequest = z.strictObject({
  derivationPath: z.string().min(1).max(256),
  /** The caller's ECDH P-256 public key as a JWK; the derived key is encrypted to it. */
  transportPublicKey: z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: P256_COORDINATE, y: P256_COORDINATE }),
})
export type VetkeyRequest = z.infer<typeof VetkeyRequest>

/** The answer: the derived key, encrypted to the transport key. */
export interface EncryptedKey {
  /** The server's ephemeral ECDH public key (JWK); with the transport private key it gives the wrapping key. */
  ephemeralPublicKey: JsonWebKey
  /** base64url of the 12-byte AES-GCM IV and of the ciphertext with its tag. */
  iv: string
  ciphertext: string
  /** The additional data the ciphertext is bound to: canonical JSON of [person, app, derivationPath]. */
  boundTo: string
}

/** HKDF `info` of the wrapping key: the transport step's fixed label. */
export const TRANSPORT_INFO = 'neuron.vetkeys.transport.v1'

/**
 * Derives the key of (`person`, `app`, `derivationPath`) and encrypts it to `transportPublicKey`.
 * Without a 16+ character `secret`: `VETKEYS_NOT_CONFIGURED` (503).
 *
 * @example
 * const sealed = await deriveEncryptedKey(env.VETKEYS_SECRET, 'idp#ada', 'notes', { derivationPath: 'notes/v1', transportPublicKey: jwk })
 */
export async function deriveEncryptedKey(secret: string | undefined, person: string, app: string, request: VetkeyRequest): Promise<EncryptedKey> {
  if (typeof secret !== 'string' || secret.length < 16) {
    throw new NeuronError('VETKEYS_NOT_CONFIGURED', 'this deployment has no VETKEYS_SECRET (16+ characters), so it cannot derive keys', { status: 503 })
  }
  const boundTo = canonicalJson([person, app, request.derivationPath])
  const master = await crypto.subtle.importKey('raw', utf8(secret), 'HKDF', false, ['deriveBits'])
  const derived = await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: utf8('neuron.vetkeys.v1'), info: utf8(boundTo) }, master, 256)

  let recipient: CryptoKey
  try {
    recipient = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: request.transportPublicKey.x, y: request.transportPublicKey.y }, { name: 'ECDH', namedCurve: 'P-256' }, false, [])
  } catch {
    throw new NeuronError('INVALID_TRANSPORT_KEY', 'transportPublicKey is not a point on P-256', { status: 400 })
  }
  const ephemeral = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair
  const wrapping = await wrappingKey(ephemeral.privateKey, recipient, ['encrypt'])
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(boundTo) }, wrapping, derived)
  const ephemeralPublicKey = (await crypto.subtle.exportKey('jwk', ephemeral.publicKey)) as JsonWebKey
  return { ephemeralPublicKey: { kty: 'EC', crv: 'P-256', x: ephemeralPublicKey.x!, y: ephemeralPublicKey.y! }, iv: base64url(iv), ciphertext: base64url(new Uint8Array(ciphertext)), boundTo }
}

/**
 * The AES-GCM key both sides compute: ECDH shared bits, then HKDF with `TRANSPORT_INFO`.
 * Exported so a receiver (and the tests) unwrap with the very same steps.
 *
 * @example
 * const key = await wrappingKey(myPrivateKey, serverEphemeralPublicKey, ['decrypt'])
 */
export async function wrappingKey(privateKey: CryptoKey, publicKey: CryptoKey, usages: ('encrypt' | 'decrypt')[]): Promise<CryptoKey> {
  const shared = await crypto.subtle.deriveBits({ name: 'ECDH', public: publicKey } as never, privateKey, 256)
  const base = await crypto.subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey'])
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: utf8(TRANSPORT_INFO) }, base, { name: 'AES-GCM', length: 256 }, false, usages)
}

function utf8(text: string) {
  return new TextEncoder().encode(text)
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}
