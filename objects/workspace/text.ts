/**
 * Whether a file is text, and its text: UTF-8 without a NUL byte. The tools that read files as
 * lines (read, edit, grep, apply_patch) describe anything else as binary rather than dump it; the
 * byte-order mark, if any, is kept, so writing the text back changes no byte it did not mean to.
 *
 * Pure: no platform imports.
 */

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * @example
 * textOf(new TextEncoder().encode('hi')) // 'hi'
 * textOf(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0])) // null
 */
export function textOf(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null
  try {
    return decoder.decode(bytes)
  } catch {
    return null
  }
}
