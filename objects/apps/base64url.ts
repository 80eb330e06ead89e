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

/** The bytes of base64url `text`; throws on characters outside the alphabet. */
export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}
