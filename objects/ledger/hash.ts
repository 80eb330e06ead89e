import { createHash } from 'node:crypto'

/**
 * Hex SHA-256. Synchronous on purpose: an append that never awaits commits
 * atomically in a Durable Object, so sequence assignment needs no locks.
 *
 * @example
 * sha256Hex('abc') // 'ba7816bf…'
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
