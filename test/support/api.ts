import { exports } from 'cloudflare:workers'
import { bearer } from './auth.ts'

/** The subject the helpers act as, unless told otherwise. */
export const OWNER = 'ada'

/** A request to the worker as `as` (default: the owner), through the real gate. */
export async function api(path: string, init: RequestInit = {}, as = OWNER): Promise<Response> {
  const headers = new Headers(init.headers)
  if (!headers.has('authorization')) for (const [k, v] of Object.entries(await bearer(as))) headers.set(k, v)
  return exports.default.fetch(`http://neuron${path}`, { ...init, headers })
}

export const postJson = (path: string, body: unknown, as = OWNER) =>
  api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, as)
