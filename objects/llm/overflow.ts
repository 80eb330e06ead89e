/**
 * Recognises a vendor's "the prompt does not fit the context window" answer,
 * whatever the dialect: OpenAI and compatible servers say
 * `code: context_length_exceeded` ("maximum context length is N tokens"),
 * Anthropic says "prompt is too long: N tokens > M maximum". The session
 * answers it with one rebuild (compact, retry), never a loop.
 */
import { ProviderError } from './errors.ts'

const PHRASES = /context[_ ]length|context window|prompt is too long|too many tokens|maximum context/i

/**
 * @example
 * isContextOverflow(new ProviderError('PROVIDER_BAD_REQUEST', 'x', { vendorType: 'context_length_exceeded' })) // true
 */
export function isContextOverflow(error: unknown): boolean {
  if (!(error instanceof ProviderError) || error.code !== 'PROVIDER_BAD_REQUEST') return false
  return error.vendorType === 'context_length_exceeded' || PHRASES.test(error.message)
}
