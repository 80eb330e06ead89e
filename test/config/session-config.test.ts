import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'

const json = { 'content-type': 'application/json' }
const putOwner = (body: unknown) => api('/v1/config', { method: 'PUT', headers: json, body: JSON.stringify(body) })
const putSession = (id: string, body: unknown, headers: Record<string, string> = {}, as?: string) =>
  api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { ...json, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }, as)
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error
const instructionsSeen = async (id: string) =>
  (await events(id)).flatMap((e: Stored) => (e.type === 'session.next.context.changed' ? [(e.payload as { values: Record<string, unknown> }).values['config.instructions']] : [])).filter((v) => v !== undefined)

/** Prompts until the session has told the model `text` (sources load asynchronously: at most a few turns). */
async function promptUntilSeen(id: string, text: string): Promise<void> {
  for (let turn = 0; turn < 5 && !(await instructionsSeen(id)).includes(text); turn++) {
    await postJson(`/v1/sessions/${id}/prompt`, { text: `turn ${turn}` })
    await waitIdle(id)
  }
}

describe('per-session config overrides', () => {
  it("override the owner's document for this session only, at the next turn boundary", async () => {
    expect((await putOwner({ instructions: ['Answer in French.'] })).status).toBe(200)
    const { id } = await newSession('override')
    const { id: other } = await newSession('plain')
    await promptUntilSeen(id, 'Answer in French.')
    expect(await instructionsSeen(id)).toContain('Answer in French.')

    const before = await api(`/v1/sessions/${id}/config`)
    expect(before.headers.get('etag')).toBe('"v0"')
    expect(await before.json()).toEqual({ version: 0, etag: '"v0"', document: {} })
    const stored = await putSession(id, { instructions: ['Answer tersely.'] }, { 'if-match': '"v0"' })
    expect(stored.status).toBe(200)
    const etag = stored.headers.get('etag')!
    expect((await api(`/v1/sessions/${id}/config`)).headers.get('etag')).toBe(etag)

    // Recorded now, the override changes nothing the model was told until a turn boundary.
    const seenBefore = await instructionsSeen(id)
    expect(seenBefore).not.toContain('Answer tersely.')
    await promptUntilSeen(id, 'Answer tersely.')
    expect(await instructionsSeen(id)).toContain('Answer tersely.')

    // The other session of the same owner keeps the owner's document.
    await promptUntilSeen(other, 'Answer in French.')
    expect(await instructionsSeen(other)).not.toContain('Answer tersely.')

    const stale = await putSession(id, { instructions: ['Answer in Klingon.'] }, { 'if-match': '"v0"' })
    expect(stale.status).toBe(412)
    expect(await errorOf(stale)).toMatchObject({ code: 'CONFIG_VERSION_MISMATCH' })
    expect(((await (await api(`/v1/sessions/${id}/config`)).json()) as { document: unknown }).document).toEqual({ instructions: ['Answer tersely.'] })
  })

  it('bad input is a 400 naming the key (or the right code), and nothing is stored', async () => {
    const { id } = await newSession('override-bad')
    const table: [unknown, number, string, RegExp][] = [
      [{ theme: 'dark' }, 400, 'INVALID_CONFIG', /theme/],
      [{ instructions: 'not an array' }, 400, 'INVALID_CONFIG', /instructions/],
      [{ skills: [{ name: 'Bad Name', description: 'd', body: 'b' }] }, 400, 'INVALID_CONFIG', /skills/],
      [[], 400, 'INVALID_CONFIG', /.+/],
      ['{not json', 400, 'INVALID_JSON', /.+/],
      [{ instructions: ['x'.repeat(1_100_000)] }, 413, 'PAYLOAD_TOO_LARGE', /.+/],
    ]
    for (const [body, status, code, names] of table) {
      const res = await putSession(id, body)
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(status)
      const error = await errorOf(res)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(names)
    }
    expect((await putSession('no-such-session', { instructions: ['x'] })).status).toBe(404)
    expect((await putSession('bad..id', { instructions: ['x'] })).status).toBe(400)
    // Another principal without a share is not told the session exists.
    expect((await putSession(id, { instructions: ['x'] }, {}, 'mallory')).status).toBe(404)
    expect((await api(`/v1/sessions/${id}/config`, {}, 'mallory')).status).toBe(404)
    expect((await api(`/v1/sessions/${id}/config`)).headers.get('etag')).toBe('"v0"')
  })
})
