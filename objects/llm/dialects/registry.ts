/**
 * Endpoint kind → wire dialect. The catalog's endpoint union beyond these
 * (`aisdk:*`, WebSocket transports, anything new) fails loudly with
 * `UnsupportedEndpointError`: a request is never downgraded to another protocol.
 */
import { UnsupportedEndpointError } from '../errors.ts'
import type { Dialect } from '../types.ts'
import { anthropic } from './anthropic.ts'
import { openai } from './openai.ts'
import { openaiCompatible } from './openai-compatible.ts'

const DIALECTS: ReadonlyMap<string, Dialect> = new Map([anthropic, openai, openaiCompatible].map((d) => [d.kind, d]))

/** Endpoint kinds with a dialect. */
export const SUPPORTED_ENDPOINTS: readonly string[] = [...DIALECTS.keys()]

/**
 * @example
 * dialectFor('anthropic/messages').kind // 'anthropic/messages'
 * dialectFor('aisdk:google') // throws UnsupportedEndpointError (code UNSUPPORTED_ENDPOINT)
 */
export function dialectFor(endpoint: string): Dialect {
  const dialect = DIALECTS.get(endpoint)
  if (!dialect) throw new UnsupportedEndpointError(endpoint, SUPPORTED_ENDPOINTS)
  return dialect
}
