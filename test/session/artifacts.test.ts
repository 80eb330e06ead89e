/**
 * What the model was shown cut is readable in full: a tool output over the model's cap is kept
 * as an artifact of the session (`tool.succeeded.artifact`), and `GET /v1/sessions/{id}/artifacts/{ref}`
 * (and the client's `session.artifact`) answers its bytes, to readers of the session only.
 */
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { MODEL_OUTPUT_CAP } from '../../objects/tools/settle.ts'
import { bearer } from '../support/auth.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'

describe('session artifacts', () => {
  it('a tool output cut for the model is read back whole, through the route and the client', async () => {
    const word = `zebra${Date.now()}`
    for (const n of [1, 2, 3]) expect((await postJson('/v1/memory/remember', { text: `${word} fact ${n}: ${'long text '.repeat(1000)}` })).status).toBe(201)
    const { id } = await newSession('artifacts')
    await postJson(`/v1/sessions/${id}/prompt`, { text: `/tool memory_recall ${JSON.stringify({ query: word, limit: 3 })}` })
    await waitIdle(id)
    const succeeded = (await events(id)).find((e) => e.type === 'session.next.tool.succeeded')!.payload as { content: string; truncated: boolean; artifact: string }
    expect(succeeded.truncated).toBe(true)
    expect(succeeded.content.length).toBeLessThan(MODEL_OUTPUT_CAP + 200)

    const res = await api(`/v1/sessions/${id}/artifacts/${succeeded.artifact}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain')
    const full = await res.text()
    expect(full.length).toBeGreaterThan(3 * 10_000)
    expect(full.startsWith(succeeded.content.slice(0, 1000))).toBe(true)
    for (const n of [1, 2, 3]) expect(full).toContain(`${word} fact ${n}`)

    const client = new NeuronClient({ url: 'http://neuron', token: (await bearer('ada')).authorization!.slice('Bearer '.length), fetch: (input, init) => exports.default.fetch(new Request(input, init)) })
    const read = await client.session(id).artifact(succeeded.artifact)
    expect([read.type, new TextDecoder().decode(read.bytes)]).toEqual(['text/plain', full])

    const codeOf = async (r: Response) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]
    expect(await codeOf(await api(`/v1/sessions/${id}/artifacts/${succeeded.artifact}`, {}, 'mallory'))).toEqual([404, 'SESSION_NOT_FOUND'])
    expect(await codeOf(await api(`/v1/sessions/${id}/artifacts/sha256:${'0'.repeat(64)}`))).toEqual([404, 'ARTIFACT_NOT_FOUND'])
    expect(await codeOf(await api(`/v1/sessions/${id}/artifacts/not-a-ref`))).toEqual([400, 'INVALID_ARTIFACT_REF'])
  })
})
