import { describe, expect, it } from 'vitest'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'

const put = (body: unknown, headers: Record<string, string> = {}, as?: string) =>
  api('/v1/config', { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }, as)
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error

describe('config documents', () => {
  it('serves the JSON Schema generated from the validating schema', async () => {
    const res = await api('/v1/config/schema.json')
    expect(res.status).toBe(200)
    const schema = (await res.json()) as { $id: string; properties: Record<string, unknown>; additionalProperties: boolean }
    expect(schema.$id).toBe('/v1/config/schema.json')
    expect(Object.keys(schema.properties).sort()).toEqual(['$schema', 'agents', 'autoupdate', 'instructions', 'mcpServers', 'permission', 'references', 'shell', 'skills'])
    expect(schema.additionalProperties).toBe(false)
  })

  it('each PUT is a new version with an ETag; a stale If-Match is 412 and changes nothing', async () => {
    const who = `cfg-${Date.now()}`
    const empty = await api('/v1/config', {}, who)
    expect(empty.headers.get('etag')).toBe('"v0"')
    expect(await empty.json()).toEqual({ version: 0, etag: '"v0"', document: {} })
    const first = await put({ instructions: ['Answer in French.'], shell: { theme: 'dark' }, autoupdate: true }, { 'if-match': '"v0"' }, who)
    expect(first.status).toBe(200)
    const v1 = first.headers.get('etag')!
    const second = await put({ instructions: ['Answer in German.'] }, { 'if-match': v1 }, who)
    expect(second.status).toBe(200)
    const stale = await put({ instructions: ['Answer in Klingon.'] }, { 'if-match': v1 }, who)
    expect(stale.status).toBe(412)
    expect(await errorOf(stale)).toMatchObject({ code: 'CONFIG_VERSION_MISMATCH' })
    const now = await api('/v1/config', {}, who)
    expect(now.headers.get('etag')).toBe(second.headers.get('etag'))
    expect(((await now.json()) as { document: unknown }).document).toEqual({ instructions: ['Answer in German.'] })
  })

  it('bad documents are a 400 that names the key', async () => {
    const table: [unknown, string, RegExp][] = [
      [{ theme: 'dark' }, 'INVALID_CONFIG', /theme/],
      [{ instructions: 'not an array' }, 'INVALID_CONFIG', /instructions/],
      [{ instructions: [{ url: 'ftp://example.com/x' }] }, 'INVALID_CONFIG', /instructions/],
      [{ skills: [{ name: 'Bad Name', description: 'd', body: 'b' }] }, 'INVALID_CONFIG', /skills/],
      [{ references: [{ name: 'r' }] }, 'INVALID_CONFIG', /references/],
      [{ autoupdate: 'yes' }, 'INVALID_CONFIG', /autoupdate/],
      [[], 'INVALID_CONFIG', /.+/],
      ['{not json', 'INVALID_JSON', /.+/],
    ]
    for (const [body, code, names] of table) {
      const res = await put(body, {}, `bad-${Date.now()}`)
      expect(res.status, JSON.stringify(body)).toBe(400)
      const error = await errorOf(res)
      expect(error.code, JSON.stringify(body)).toBe(code)
      expect(error.message).toMatch(names)
    }
  })

  it("a session tells the model its owner's instructions, and a change reaches it at the next turn boundary", async () => {
    const { id } = await newSession('cfg')
    expect((await put({ instructions: ['Answer in French.'] })).status).toBe(200)
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'one' })
    await waitIdle(id)
    expect((await put({ instructions: ['Answer in German.'] })).status).toBe(200)
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'two' })
    await waitIdle(id)
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'three' })
    await waitIdle(id)
    const changes = (await events(id)).filter((e: Stored) => e.type === 'session.next.context.changed').map((e) => (e.payload as { values: Record<string, unknown> }).values['config.instructions'])
    expect(changes.filter((v) => v !== undefined)).toContain('Answer in German.')
  })
})

describe('skills', () => {
  it('the model sees the index and loads one skill with the skill tool; an unknown name fails with a code', async () => {
    const who = `skills-${Date.now()}`
    const skills = [
      { name: 'deploy', description: 'How we ship a release', body: 'Tag, build, then wrangler deploy.' },
      { name: 'review', description: 'How we review code', body: 'Read the tests first.' },
    ]
    expect((await put({ skills }, {}, who)).status).toBe(200)
    const { id } = await newSession('skills', who)
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'warm up' }, who)
    await waitIdle(id, 20_000, who)
    await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool skill {"name":"deploy"}\n/tool skill {"name":"nope"}' }, who)
    await waitIdle(id, 20_000, who)
    const log = await eventsAs(id, who)
    const index = log.flatMap((e) => (e.type === 'session.next.context.changed' ? [(e.payload as { values: Record<string, unknown> }).values['skills.index']] : [])).filter(Boolean)
    expect(index).toEqual(['deploy: How we ship a release (load it with the skill tool)\nreview: How we review code (load it with the skill tool)'])
    expect(log.find((e) => e.type === 'session.next.tool.succeeded')!.payload).toMatchObject({ content: 'Skill deploy:\nTag, build, then wrangler deploy.' })
    expect(log.find((e) => e.type === 'session.next.tool.failed')!.payload).toMatchObject({ error: { code: 'SKILL_NOT_FOUND' } })
  })
})

async function eventsAs(id: string, who: string): Promise<Stored[]> {
  const res = await api(`/v1/sessions/${id}/history?limit=1000`, {}, who)
  return ((await res.json()) as { items: Stored[] }).items
}
