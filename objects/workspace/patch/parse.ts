/**
 * Reading a patch in either format agents emit: `*** Begin Patch` (begin-patch.ts) when the text
 * has that line, else a unified diff (unified.ts). Line ends are normalized first (a patch typed on
 * Windows reads the same), and the text is bounded by `MAX_PATCH_BYTES` before anything reads it.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../../core/errors.ts'
import { MAX_PATCH_BYTES } from '../../core/limits.ts'
import { parseBeginPatch } from './begin-patch.ts'
import type { Patch } from './types.ts'
import { parseUnified } from './unified.ts'

/**
 * @example
 * parsePatch('*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch') // { format: 'begin-patch', files: [{ kind: 'add', path: 'a.txt', text: 'hi\n' }] }
 */
export function parsePatch(text: string): Patch {
  if (typeof text !== 'string') throw new NeuronError('PATCH_INVALID', 'a patch is text', { status: 400, details: { reason: 'not a string' } })
  if (text.length > MAX_PATCH_BYTES || new TextEncoder().encode(text).byteLength > MAX_PATCH_BYTES) {
    throw new NeuronError('PATCH_TOO_LARGE', `a patch may be ${MAX_PATCH_BYTES} bytes`, { status: 413, details: { limit: MAX_PATCH_BYTES } })
  }
  if (text.includes('\u0000')) throw new NeuronError('PATCH_BINARY', 'the patch holds a NUL byte: binary content is not patched', { status: 415, details: {} })
  const normalized = text.replace(/\r\n/g, '\n')
  return /^\*\*\* Begin Patch\s*$/m.test(normalized) ? parseBeginPatch(normalized) : parseUnified(normalized)
}
