/** Helpers of the app tests: upload, install and call through the real gate and routes. */
import { api, postJson } from '../support/api.ts'

export const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string; details?: Record<string, unknown> } }).error

/** Uploads `pkg` as `as`; the response. */
export const upload = (pkg: unknown, as: string) => postJson('/v1/apps/packages', pkg, as)

/** Uploads and installs `pkg` for `as`; its hash. */
export async function installed(pkg: unknown, as: string): Promise<string> {
  const stored = await upload(pkg, as)
  if (stored.status !== 201 && stored.status !== 200) throw new Error(`upload failed: ${stored.status} ${await stored.text()}`)
  const { hash } = (await stored.json()) as { hash: string }
  const res = await postJson('/v1/apps/installs', { package: hash }, as)
  if (res.status !== 201) throw new Error(`install failed: ${res.status} ${await res.text()}`)
  return hash
}

/** Calls `method` of `as`'s installation of `app`. */
export const call = (app: string, method: string, input: unknown, as: string) => postJson(`/v1/apps/installs/${app}/call`, { method, input }, as)

/** The output of a call that must succeed. */
export async function output(app: string, method: string, input: unknown, as: string): Promise<Record<string, unknown>> {
  const res = await call(app, method, input, as)
  if (res.status !== 200) throw new Error(`${app}.${method}: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { output: Record<string, unknown> }).output
}

export const send = (method: string, path: string, body: unknown, as: string) =>
  api(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, as)

/** A fresh subject per test, so tests share no installation. */
export const person = (prefix: string) => `${prefix}-${crypto.randomUUID()}`

/** One request through the gate, so a file's first test does not pay the worker's cold start. */
export const warm = () => api('/v1/me', {}, 'warm-up')
