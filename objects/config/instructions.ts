/**
 * The `config.instructions` context source: the owner's config instructions as
 * one text. Inline entries are used as they are; URL entries are fetched by the
 * worker through the outbound fetch (objects/outbound: the URL policy on every
 * hop, a bounded body) and cached for `URL_TTL_MS`. Of a URL's text the first
 * `MAX_INSTRUCTIONS_URL_BYTES` are kept and the rest is never read. A URL that
 * cannot be fetched (or is refused) makes the whole source fail this time, so
 * the session keeps serving the last good value (or `Unavailable`), never a
 * silently shortened one.
 */
import type { JsonObject } from '../ledger/json.ts'
import { MAX_CONFIG_URL_RESPONSE_BYTES, MAX_INSTRUCTIONS_URL_BYTES } from '../core/limits.ts'
import { outboundFetch, readText } from '../outbound/fetch.ts'
import type { OutboundPolicy } from '../outbound/policy.ts'

export const URL_TTL_MS = 5 * 60_000
/** How long one URL may take to answer. */
export const URL_TIMEOUT_MS = 5_000

const cache = new Map<string, { text: string; at: number }>()

/**
 * `network` is the fetch the outbound fetch sends with (tests pass a fake).
 *
 * @example
 * sources.register('config.instructions', async () => instructionsOf(await config(), { development: false }))
 */
export async function instructionsOf(document: JsonObject, policy: OutboundPolicy, now = Date.now(), network: typeof fetch = fetch): Promise<string | null> {
  const entries = (document.instructions ?? []) as (string | { url: string })[]
  if (entries.length === 0) return null
  const get = outboundFetch(policy, { refused: 'URL_REFUSED', tooLarge: 'URL_BODY_TOO_LARGE', maxBytes: MAX_CONFIG_URL_RESPONSE_BYTES }, network)
  const texts: string[] = []
  for (const entry of entries) {
    if (typeof entry === 'string') {
      texts.push(entry)
      continue
    }
    const cached = cache.get(entry.url)
    if (cached && now - cached.at < URL_TTL_MS) {
      texts.push(cached.text)
      continue
    }
    const response = await get(entry.url, { signal: AbortSignal.timeout(URL_TIMEOUT_MS) })
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`instructions ${entry.url} answered ${response.status}`)
    }
    const { text } = await readText(response, MAX_INSTRUCTIONS_URL_BYTES)
    cache.set(entry.url, { text, at: now })
    texts.push(text)
  }
  return texts.join('\n\n')
}
