/**
 * The `config.instructions` context source: the owner's config instructions as
 * one text. Inline entries are used as they are; URL entries are fetched by the
 * worker and cached for `URL_TTL_MS`. A URL that cannot be fetched makes the
 * whole source fail this time, so the session keeps serving the last good
 * value (or `Unavailable`), never a silently shortened one.
 */
import type { JsonObject } from '../ledger/json.ts'

export const URL_TTL_MS = 5 * 60_000
const MAX_FETCHED_CHARS = 64 * 1024

const cache = new Map<string, { text: string; at: number }>()

/**
 * @example
 * sources.register('config.instructions', () => instructionsOf(await configs.getByName(owner).current()))
 */
export async function instructionsOf(document: JsonObject, now = Date.now(), fetcher: typeof fetch = fetch): Promise<string | null> {
  const entries = (document.instructions ?? []) as (string | { url: string })[]
  if (entries.length === 0) return null
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
    const response = await fetcher(entry.url, { signal: AbortSignal.timeout(5_000) })
    if (!response.ok) throw new Error(`instructions ${entry.url} answered ${response.status}`)
    const text = (await response.text()).slice(0, MAX_FETCHED_CHARS)
    cache.set(entry.url, { text, at: now })
    texts.push(text)
  }
  return texts.join('\n\n')
}
