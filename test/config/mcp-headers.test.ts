/**
 * The headers of a principal's MCP servers: write-only (a listing names the
 * server and the header names, never a value), sealed per principal, and
 * refused with a code for a bad server name or body, and for a header name
 * that would change the request's framing, routing or origin (nothing written).
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { api } from '../support/session.ts'
import { idOf } from '../support/auth.ts'

const put = (server: string, body: unknown, as: string) =>
  api(`/v1/config/mcp/${server}/headers`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, as)

describe('MCP server headers', () => {
  it('are stored sealed and never answered; delete removes them', async () => {
    const who = `mcp-h-${Date.now()}`
    const stored = await put('notes', { headers: { authorization: 'Bearer sekrit-123', 'x-team': 'a' } }, who)
    expect(stored.status).toBe(200)
    expect(await stored.json()).toEqual({ server: 'notes', setAt: expect.any(String), names: ['authorization', 'x-team'] })
    const listing = await (await api('/v1/config/mcp', {}, who)).text()
    expect(listing).not.toContain('sekrit')
    expect(JSON.parse(listing).items).toEqual([{ server: 'notes', setAt: expect.any(String), names: ['authorization', 'x-team'] }])
    // Only the principal's own sessions open them; another principal's object has none.
    expect(await env.CONFIGS.getByName(idOf(who)).mcpHeaders(idOf(who))).toEqual({ notes: { authorization: 'Bearer sekrit-123', 'x-team': 'a' } })
    expect(await env.CONFIGS.getByName(idOf(who)).mcpHeaders(idOf('someone-else'))).toEqual({})
    const deleted = await api('/v1/config/mcp/notes/headers', { method: 'DELETE' }, who)
    expect(await deleted.json()).toEqual({ server: 'notes', deleted: true })
    expect((await (await api('/v1/config/mcp', {}, who)).json()) as unknown).toEqual({ items: [] })
  })

  it.each(['host', 'Content-Length', 'transfer-encoding', 'cf-connecting-ip', 'connection', 'keep-alive', 'upgrade', 'te', 'proxy-authorization', 'x-forwarded-for', 'forwarded', 'mcp-session-id', 'content-type', 'sec-fetch-site'])(
    'refuses the header %s with MCP_HEADER_FORBIDDEN and writes nothing',
    async (name) => {
      const who = `mcp-h-forbidden-${name.toLowerCase()}`
      const res = await put('notes', { headers: { authorization: 'Bearer ok', [name]: 'x' } }, who)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: { code: 'MCP_HEADER_FORBIDDEN', details: { names: [name.toLowerCase()] } } })
      expect(await (await api('/v1/config/mcp', {}, who)).json()).toEqual({ items: [] })
    },
  )

  it('refuses a bad server name or body with INVALID_REQUEST', async () => {
    for (const [server, body] of [
      ['Bad_Name', { headers: { authorization: 'x' } }],
      ['notes', { headers: {} }],
      ['notes', { headers: { 'bad header': 'x' } }],
      ['notes', { authorization: 'x' }],
    ] as const) {
      const res = await put(server, body, 'mcp-h-bad')
      expect(res.status, JSON.stringify([server, body])).toBe(400)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST')
    }
  })
})
