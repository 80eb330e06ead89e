/**
 * How an installed app's frontend reaches its sandboxed frame. The shell's app
 * frames have opaque origins and must never see the person's token, so they
 * cannot call the API. Instead each (person, package) gets a frame address,
 * `/app-frames/<token>/<file>`, where the token is the package hash, the person
 * and an HMAC of both under a deployment secret: a capability to read that one
 * package's files, handed out only to the signed-in person in their install
 * list. A package is immutable and content-addressed, so its files are served
 * cacheable, with the same sandbox CSP as the shell's own app pages.
 *
 * @example
 * const base = await frameBase(env.TICKET_SECRET!, 'idp#ada', hash) // '/app-frames/<token>/'
 * await readFrameToken(env.TICKET_SECRET!, token)                    // { person: 'idp#ada', hash } | null
 */
import { base64url, fromBase64url } from './base64url.ts'

/** Where package files are served (outside /v1: documents for frames, not API). */
export const FRAMES_PATH = '/app-frames'

const LABEL = 'neuron.app-frames.v1'
const TOKEN = /^([0-9a-f]{64})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/

/** The address prefix of `person`'s frames of package `hash`, ending in `/`. */
export async function frameBase(secret: string, person: string, hash: string): Promise<string> {
  const who = base64url(new TextEncoder().encode(person))
  return `${FRAMES_PATH}/${hash}.${who}.${base64url(await mac(secret, person, hash))}/`
}

/** The person and package a token names, or null when it is malformed or not one this deployment made. */
export async function readFrameToken(secret: string, token: string): Promise<{ person: string; hash: string } | null> {
  const match = TOKEN.exec(token)
  if (!match) return null
  const [, hash, who, tag] = match as unknown as [string, string, string, string]
  let person: string
  try {
    person = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(who))
  } catch {
    return null
  }
  let presented: Uint8Array
  try {
    presented = fromBase64url(tag)
  } catch {
    return null
  }
  const key = await hmacKey(secret, ['verify'])
  const ok = await crypto.subtle.verify('HMAC', key, presented, message(person, hash))
  return ok ? { person, hash } : null
}

async function mac(secret: string, person: string, hash: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret, ['sign']), message(person, hash)))
}

function hmacKey(secret: string, usages: ('sign' | 'verify')[]): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, usages)
}

/** Labelled, so a MAC made for frames means nothing anywhere else the same secret is used. */
function message(person: string, hash: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify([LABEL, person, hash]))
}
