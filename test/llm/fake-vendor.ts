/**
 * The workerd side of the fake vendor (see fake-vendor.setup.ts): script what
 * the next requests get, and read back what was actually sent over HTTP.
 */
import { inject } from 'vitest'
import type { FakeStep, RecordedRequest } from './fake-vendor.setup.ts'

export type { FakeStep, RecordedRequest }

export interface FakeVendor {
  /** Base URL to give a provider, e.g. `${url}/v1`. */
  url: string
  requests(): Promise<RecordedRequest[]>
}

/**
 * @example
 * const vendor = await fakeVendor([{ status: 401, body: '{"error":…}' }, { fixture: 'anthropic/text.sse' }])
 */
export async function fakeVendor(steps: FakeStep[]): Promise<FakeVendor> {
  const base = inject('fakeVendorUrl')
  const key = crypto.randomUUID()
  const res = await fetch(`${base}/__plan/${key}`, { method: 'PUT', body: JSON.stringify(steps) })
  if (res.status !== 204) throw new Error(`fake vendor refused the plan: ${res.status}`)
  return {
    url: `${base}/${key}`,
    requests: async () => (await (await fetch(`${base}/__requests/${key}`)).json()) as RecordedRequest[],
  }
}
