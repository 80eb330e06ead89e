/**
 * base64url without padding (RFC 4648 §5), for bytes that travel in URLs: the person and the MAC
 * in a frame address (frame-files.ts).
 *
 * @example
 * fromBase64url(base64url(new Uint8Array([251, 255]))) // Uint8Array [251, 255]; the text is '-_8'
 */

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/**
 * The bytes of base64url `text`; throws on characters outside the alphabet and on any text that
 * is not the one encoding of its bytes (the last character's unused low bits set, a stray
 * length), so one set of bytes has exactly one address.
 */
export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4))
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0))
  if (base64url(bytes) !== text) throw new Error('not canonical base64url')
  return bytes
}
