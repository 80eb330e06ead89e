import { env } from 'cloudflare:workers'
import type { Caller } from '../../objects/access/authorize.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { OWNER, postJson } from './api.ts'
import { idOf } from './auth.ts'
import { uniqueName } from './ledger.ts'

export { api, OWNER, postJson } from './api.ts'

export const ownerCaller: Caller = { id: idOf(OWNER), claims: [] }

/** Creates a session on the local model, owned by `as`, and returns its id and stub. */
export async function newSession(prefix = 'session', as = OWNER, extra: Record<string, unknown> = {}) {
  const id = uniqueName(prefix)
  const res = await postJson('/v1/sessions', { id, ...extra }, as)
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`)
  return { id, stub: env.SESSIONS.getByName(id) }
}

/** Polls until the session is idle with an empty inbox. */
export async function waitIdle(id: string, timeoutMs = 20_000, as = OWNER): Promise<void> {
  const stub = env.SESSIONS.getByName(id)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const view = await stub.view({ id: idOf(as), claims: [] })
    if (view.status === 'idle') return
    if (Date.now() > deadline) throw new Error(`session ${id} still busy: ${JSON.stringify(view)}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Polls until an event of `type` exists after `after`; returns it. */
export async function waitFor(id: string, type: string, after = 0, timeoutMs = 20_000): Promise<Stored> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = (await events(id)).find((e) => e.type === type && e.seq > after)
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no ${type} in ${id} after ${after}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Every durable event of the session, oldest first (read as the owner). */
export async function events(id: string): Promise<Stored[]> {
  const stub = env.SESSIONS.getByName(id)
  const all: Stored[] = []
  let after = 0
  for (;;) {
    const page = await stub.history(ownerCaller, after, 1000)
    all.push(...(page.items as Stored[]))
    if (page.next === null) return all
    after = page.next
  }
}

export const types = (list: Stored[]) => list.map((e) => e.type.replace('session.next.', ''))
