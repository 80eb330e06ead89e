/**
 * Webhooks in, through the real gate with no bearer token: a hook's owner creates it and is shown
 * its secret once; a delivery signed with it is admitted through the hook's template, once per
 * delivery id (the sender's retry gets the same receipt), as the hook's principal, not the owner's;
 * unsigned, badly signed, stale and replayed deliveries are 401 with their codes, an oversized body
 * 413, a too-deep one 400, and none of them writes a row.
 */
import { runInDurableObject } from 'cloudflare:test'
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { HOOK_LIMITS, MAX_JSON_DEPTH } from '../../objects/core/limits.ts'
import { sign } from '../../objects/session/hooks/hooks.ts'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { countRows } from '../support/rows.ts'
import { api, events, newSession, ownerCaller, postJson, waitIdle } from '../support/session.ts'

/** Posts `body` to the hook, signed with `secret` unless told otherwise; no Authorization header. */
async function deliver(id: string, body: string, options: { secret?: string; delivery?: string; timestamp?: number; signature?: string; unsigned?: boolean } = {}) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000))
  const delivery = options.delivery ?? 'd-1'
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (!options.unsigned) {
    headers['x-neuron-timestamp'] = timestamp
    headers['x-neuron-delivery'] = delivery
    headers['x-neuron-signature'] = options.signature ?? `sha256=${await sign(options.secret!, timestamp, delivery, body)}`
  }
  return exports.default.fetch(`http://neuron/v1/hooks/${id}`, { method: 'POST', headers, body })
}
const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code

describe('webhooks in', () => {
  it('a signed delivery becomes one prompt through the template, as the hook; refusals are 401/413/400 with codes and write nothing', async () => {
    const { id, stub } = await newSession('hooks')
    const created = await postJson(`/v1/sessions/${id}/hooks`, { name: 'ci', template: 'The build reported:\n{{body}}' })
    expect(created.status).toBe(201)
    const { hook, secret } = (await created.json()) as { hook: { id: string }; secret: string }
    expect(hook.id).toBe(`${id}~ci`)
    expect(JSON.stringify(await (await api(`/v1/sessions/${id}/hooks`)).json())).not.toContain(secret)
    expect(await codeOf(await postJson(`/v1/sessions/${id}/hooks`, { name: 'ci', template: 'again {{body}}' }))).toBe('HOOK_EXISTS')

    const body = JSON.stringify({ status: 'failed', job: 42 })
    const first = await deliver(hook.id, body, { secret })
    expect(first.status).toBe(202)
    const receipt = await first.json()
    const retry = await deliver(hook.id, body, { secret })
    expect(retry.status).toBe(200)
    expect(await retry.json()).toEqual(receipt)

    await waitIdle(id)
    // The drain's own after-work (the conversation written into the graph) done before counting.
    await stub.writeChain(ownerCaller)
    const rows = await runInDurableObject(stub, (_o: SessionObject, ctx: DurableObjectState) => countRows(ctx.storage))
    const now = Math.floor(Date.now() / 1000)
    const refusals: [Promise<Response>, number, string][] = [
      [deliver(hook.id, body, { unsigned: true }), 401, 'HOOK_UNSIGNED'],
      [deliver(hook.id, body, { secret, signature: 'sha256=00' }), 401, 'HOOK_SIGNATURE'],
      [deliver(hook.id, body, { secret: 'whsec_not-this-one', delivery: 'd-2' }), 401, 'HOOK_SIGNATURE'],
      [deliver(hook.id, body, { secret, delivery: 'd-3', timestamp: now - HOOK_LIMITS.windowSeconds - 5 }), 401, 'HOOK_STALE'],
      [deliver(hook.id, JSON.stringify({ status: 'passed' }), { secret }), 401, 'HOOK_REPLAYED'],
      [deliver(`${id}~nope`, body, { secret }), 401, 'HOOK_SIGNATURE'],
      [deliver('no-such-session~ci', body, { secret }), 401, 'HOOK_SIGNATURE'],
      [deliver(hook.id, JSON.stringify({ big: 'x'.repeat(HOOK_LIMITS.bodyBytes) }), { secret, delivery: 'd-4' }), 413, 'PAYLOAD_TOO_LARGE'],
      [deliver(hook.id, '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1), { secret, delivery: 'd-5' }), 400, 'JSON_TOO_DEEP'],
    ]
    for (const [sent, status, code] of refusals) {
      const res = await sent
      expect(res.status, code).toBe(status)
      expect(await codeOf(res)).toBe(code)
    }
    expect(rows.byStatement()).toEqual({})
    rows.restore()

    await waitIdle(id)
    const log = await events(id)
    const admitted = log.filter((e) => e.type === 'session.next.admitted')
    expect(admitted.map((e) => e.payload)).toEqual([expect.objectContaining({ messageId: 'hook:ci:d-1', text: `The build reported:\n${JSON.stringify(JSON.parse(body), null, 2)}` })])
    // The turn acts for the hook, never for the owner.
    expect(log.find((e) => e.type === 'session.next.prompted')!.payload).toMatchObject({ by: { principal: `hook:${id}~ci`, claims: [] } })
    // Another principal cannot create a session's hooks.
    expect((await postJson(`/v1/sessions/${id}/hooks`, { name: 'x', template: '{{body}}' }, 'mallory')).status).toBe(404)
  })
})
