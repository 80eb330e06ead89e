/**
 * The config document's `agents` section (objects/agents/profile.ts) through `PUT /v1/config`:
 * profiles are validated with the document, by name, field, count and size, and a refused
 * document stores nothing (the version stays). The precedence of the three sources is a pure
 * fold (objects/agents/resolve.ts), checked here as a table.
 */
import { describe, expect, it } from 'vitest'
import { AGENT_LIMITS } from '../../objects/core/limits.ts'
import { agentsOf, resolveAgent, toolFilter } from '../../objects/agents/resolve.ts'
import { api } from '../support/session.ts'
import { codeOf } from '../support/codes.ts'

const putConfig = (body: unknown, as: string) => api('/v1/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, as)
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error

describe('the config document’s agents', () => {
  it('refuses a bad name, an unknown field, too many profiles and a profile too large, naming what is wrong, and stores nothing', async () => {
    const as = 'agents-config-ivy'
    expect((await putConfig({ agents: { reviewer: { tools: ['read'] } } }, as)).status).toBe(200)
    const stored = await (await api('/v1/config', {}, as)).json()
    const many = Object.fromEntries(Array.from({ length: AGENT_LIMITS.count + 1 }, (_, i) => [`a${i}`, {}]))
    const table: [unknown, RegExp][] = [
      [{ agents: { 'Bad Name': {} } }, /agents/],
      [{ agents: { reviewer: { temperature: 2 } } }, /temperature/],
      [{ agents: { reviewer: { maxSteps: AGENT_LIMITS.maxSteps + 1 } } }, /maxSteps/],
      [{ agents: { reviewer: { model: 'no-slash' } } }, /model/],
      [{ agents: { reviewer: { permission: { rules: [{ tool: 'bash', action: 'maybe' }] } } } }, /permission/],
      [{ agents: many }, new RegExp(`at most ${AGENT_LIMITS.count} agents`)],
      [{ agents: { reviewer: { instructions: Array.from({ length: 4 }, () => 'x'.repeat(20_000)) } } }, /at most 65536 bytes/],
    ]
    for (const [body, names] of table) {
      const res = await putConfig(body, as)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      const error = await errorOf(res)
      expect(error.code).toBe('INVALID_CONFIG')
      expect(error.message).toMatch(names)
    }
    expect(await (await api('/v1/config', {}, as)).json()).toEqual(stored)
  })

  it('lays config over deployment over builtin, field by field; an unknown name is UNKNOWN_AGENT', () => {
    const deployment = new Map([['reviewer', { model: 'local/echo-1', tools: ['read'], maxSteps: 3 }]])
    const config = { agents: { reviewer: { maxSteps: 5 }, default: { tools: ['calculator'] } } }
    const all = agentsOf(deployment, config)
    expect([...all.keys()]).toEqual(['default', 'reviewer'])
    expect(all.get('reviewer')).toEqual({ name: 'reviewer', source: 'config', layers: ['deployment', 'config'], profile: { model: 'local/echo-1', tools: ['read'], maxSteps: 5 } })
    expect(all.get('default')).toMatchObject({ source: 'config', layers: ['builtin', 'config'], profile: { tools: ['calculator'] } })
    expect(resolveAgent('reviewer', deployment, {}).profile.maxSteps).toBe(3)
    expect(resolveAgent('default', new Map(), {}).source).toBe('builtin')
    expect(codeOf(() => resolveAgent('nobody', deployment, config))).toBe('UNKNOWN_AGENT')
    // A stored section that no longer reads gives no profiles rather than failing every session.
    expect([...agentsOf(new Map(), { agents: { 'Bad Name': {} } }).keys()]).toEqual(['default'])
  })

  it('a tools filter is names and `*` wildcards over the whole name; none offers everything', () => {
    const offers = toolFilter(['calculator', 'mcp.github.*', 'read'])
    expect(['calculator', 'mcp.github.issues', 'read', 'bash', 'mcp.gitlab.x', 'reader', 'xcalculator'].filter(offers)).toEqual(['calculator', 'mcp.github.issues', 'read'])
    expect(toolFilter(undefined)('anything')).toBe(true)
    expect(toolFilter([])('calculator')).toBe(false)
    // Regex syntax in a pattern is literal text, not an expression.
    expect(toolFilter(['(a+)+$'])('aaaa')).toBe(false)
  })
})
