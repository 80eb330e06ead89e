/**
 * Per-principal provider credentials: a principal's own vendor API key, sealed
 * with AES-GCM under a key derived (HKDF-SHA-256) from the deployment secret
 * `CREDENTIALS_SECRET`. Only the ciphertext is stored; the principal and the
 * provider are bound in as additional data, so a ciphertext copied to another
 * principal or provider does not open. Keys are write-only through the API:
 * what is listed is which providers have one and when it was set.
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { CATALOG_SNAPSHOT } from '../llm/catalog-snapshot.ts'

/** A sealed key as stored: base64 of the 12-byte IV and of the ciphertext with its tag. */
export interface SealedKey {
  iv: string
  ciphertext: string
  /** ISO time it was set. */
  setAt: string
}

/** The body of `PUT /v1/config/credentials/:provider`. */
export const CredentialBody = z.strictObject({ apiKey: z.string().min(1).max(4096).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces') })

/** Providers a key can be stored for: catalog providers that take an API key. */
export const KEYED_PROVIDERS: readonly string[] = CATALOG_SNAPSHOT.filter((row) => row.env.length > 0).map((row) => row.id)

/**
 * The provider named in a route, or `UNKNOWN_PROVIDER`.
 *
 * @example
 * keyedProvider('anthropic') // 'anthropic'
 */
export function keyedProvider(provider: string): string {
  if (!KEYED_PROVIDERS.includes(provider)) {
    throw new NeuronError('UNKNOWN_PROVIDER', `no provider ${JSON.stringify(provider.slice(0, 64))} takes an API key; one of ${KEYED_PROVIDERS.join(', ')}`, {
      status: 400,
      details: { providers: [...KEYED_PROVIDERS] },
    })
  }
  return provider
}

/**
 * Encrypts `apiKey` for `principal` and `provider`. Without a deployment secret nothing is stored:
 * `CREDENTIALS_NOT_CONFIGURED` (503).
 *
 * @example
 * const sealed = await sealKey(env.CREDENTIALS_SECRET, 'user#ada', 'anthropic', 'sk-ant-…')
 */
export async function sealKey(secret: string | undefined, principal: string, provider: string, apiKey: string, now = new Date()): Promise<SealedKey> {
  const key = await keyOf(secret)
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: boundTo(principal, provider) }, key, new TextEncoder().encode(apiKey))
  return { iv: toBase64(iv), ciphertext: toBase64(new Uint8Array(sealed)), setAt: now.toISOString() }
}

/**
 * Decrypts a sealed key, or null when it does not open (the secret changed, or it was sealed for
 * another principal or provider).
 *
 * @example
 * await openKey(env.CREDENTIALS_SECRET, 'user#ada', 'anthropic', sealed) // 'sk-ant-…'
 */
export async function openKey(secret: string | undefined, principal: string, provider: string, sealed: SealedKey): Promise<string | null> {
  const key = await keyOf(secret)
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(sealed.iv), additionalData: boundTo(principal, provider) }, key, fromBase64(sealed.ciphertext))
    return new TextDecoder().decode(plain)
  } catch {
    return null
  }
}

async function keyOf(secret: string | undefined): Promise<CryptoKey> {
  if (typeof secret !== 'string' || secret.length < 16) {
    throw new NeuronError('CREDENTIALS_NOT_CONFIGURED', 'this deployment has no CREDENTIALS_SECRET (16+ characters), so it cannot store provider keys', { status: 503 })
  }
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveKey'])
  const params = { name: 'HKDF', hash: 'SHA-256', salt: new TextEncoder().encode('neuron.credentials'), info: new TextEncoder().encode('provider-api-key.v1') }
  return crypto.subtle.deriveKey(params, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])
}

function boundTo(principal: string, provider: string): Uint8Array {
  return new TextEncoder().encode(`${principal}\n${provider}`)
}

/** Standard base64 of `bytes` (what sealed values store). */
export function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
}

/** The bytes of base64 `text` (padding optional). */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0))
}
