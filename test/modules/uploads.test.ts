/**
 * Uploaded tool modules through the real gate and routes: every way an upload can be wrong gets
 * its code and writes nothing (no shelf, no directory entry, no version); a good upload is a
 * version, the same upload again is a duplicate, a changed one the next version, and retiring
 * keeps the numbering; a deployment's own tool names are refused as a built-in's are.
 */
import { env } from 'cloudflare:workers'
import { createExecutionContext } from 'cloudflare:test'
import { z } from 'zod'
import { Tool } from '../../objects/tools/tool.ts'
import { createNeuron } from '../../worker/neuron.ts'
import { bearer } from '../support/auth.ts'
import { beforeAll, describe, expect, it } from 'vitest'
import { shelfKey } from '../../objects/apps/installation.ts'
import { MAX_BACKEND_BYTES, MODULE_LIMITS } from '../../objects/core/limits.ts'
import { exists } from '../../objects/directory/keys.ts'
import { api, postJson } from '../support/api.ts'
import { idOf } from '../support/auth.ts'
import { errorOf, person, send, warm } from '../apps/support.ts'

const ANY = { type: 'object' }
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `the ${name} tool`, input: ANY, output: ANY, ...extra })
const WEATHER = { module: 'weather', code: 'export default { async weather_now(input) { return { city: input.city, celsius: 21 } } }', tools: [tool('weather_now')] }
const upload = (body: unknown, as: string) => postJson('/v1/modules', body, as)

describe('tool module uploads', () => {
  beforeAll(() => warm(), 60_000)

  it('bad uploads: a table of codes, and nothing is written', async () => {
    const ada = person('ada')
    const table: [string, unknown, number, string, Record<string, unknown>?][] = [
      ['not an object', 'hello', 400, 'INVALID_MODULE'],
      ['no tools', { ...WEATHER, tools: [] }, 400, 'INVALID_MODULE'],
      ['a bad module id', { ...WEATHER, module: 'Bad Id' }, 400, 'INVALID_MODULE'],
      ['a tool name with a dot', { ...WEATHER, tools: [tool('weather.now')] }, 400, 'INVALID_MODULE'],
      ['an unknown field', { ...WEATHER, env: { SECRET: 1 } }, 400, 'INVALID_MODULE'],
      ['a name shadowing a built-in', { ...WEATHER, code: 'export default { async calculator() { return {} } }', tools: [tool('calculator')] }, 409, 'TOOL_NAME_TAKEN', { tool: 'calculator', by: 'builtin' }],
      ['a name shadowing an agent tool', { ...WEATHER, tools: [tool('weather_now'), tool('report')] }, 409, 'TOOL_NAME_TAKEN', { tool: 'report', by: 'builtin' }],
      ['a duplicate name', { ...WEATHER, tools: [tool('weather_now'), tool('weather_now', { description: 'again' })] }, 400, 'TOOL_NAME_DUPLICATE', { tool: 'weather_now' }],
      ['an input schema that does not compile', { ...WEATHER, tools: [tool('weather_now', { input: { type: 'string', pattern: '([a-z' } })] }, 400, 'INVALID_SCHEMA', { tool: 'weather_now', side: 'input' }],
      ['a pattern with no linear-time meaning', { ...WEATHER, tools: [tool('weather_now', { output: { type: 'string', pattern: '^(a+)+\\1$' } })] }, 400, 'INVALID_SCHEMA', { tool: 'weather_now', side: 'output' }],
      ['a $ref that does not resolve', { ...WEATHER, tools: [tool('weather_now', { input: { $ref: '#/$defs/missing' } })] }, 400, 'INVALID_SCHEMA', { tool: 'weather_now', side: 'input' }],
      ['code over the size bound', { ...WEATHER, code: `//${'x'.repeat(MAX_BACKEND_BYTES)}\n${WEATHER.code}` }, 413, 'MODULE_TOO_LARGE', { limit: MAX_BACKEND_BYTES }],
      ['too many tools', { ...WEATHER, tools: Array.from({ length: MODULE_LIMITS.tools + 1 }, (_, i) => tool(`t${i}`)) }, 413, 'MODULE_TOO_LARGE', { limit: MODULE_LIMITS.tools }],
      ['too many origins', { ...WEATHER, origins: Array.from({ length: MODULE_LIMITS.origins + 1 }, (_, i) => `https://o${i}.example.com`) }, 413, 'MODULE_TOO_LARGE', { limit: MODULE_LIMITS.origins }],
      ['declarations over their bound', { ...WEATHER, tools: [tool('weather_now', { description: 'd'.repeat(4096), input: { type: 'object', description: 'x'.repeat(MODULE_LIMITS.toolsBytes) } })] }, 413, 'MODULE_TOO_LARGE'],
      ['an origin that is not http(s)', { ...WEATHER, origins: ['ftp://files.example.com'] }, 400, 'INVALID_ORIGIN'],
      ['an origin the outbound policy refuses', { ...WEATHER, origins: ['https://10.0.0.1'] }, 400, 'URL_REFUSED'],
      ['code that is not an ES module', { ...WEATHER, code: 'module.exports = { weather_now() {} }' }, 422, 'BACKEND_LOAD_FAILED'],
      ['code that does not parse', { ...WEATHER, code: 'export default {' }, 422, 'BACKEND_LOAD_FAILED'],
      ['code that throws while loading', { ...WEATHER, code: 'throw new Error("boom"); export default {}' }, 422, 'BACKEND_LOAD_FAILED'],
      ['code without a declared tool', { ...WEATHER, tools: [tool('weather_now'), tool('weather_week')] }, 422, 'BACKEND_LOAD_FAILED', { missing: ['weather_week'] }],
    ]
    for (const [what, body, status, code, details] of table) {
      const res = await upload(body, ada)
      expect(res.status, what).toBe(status)
      const error = await errorOf(res)
      expect(error.code, what).toBe(code)
      if (details) expect(error.details, what).toMatchObject(details)
    }
    // Nothing was written: no directory entry for the shelf (so no object was addressed), no module.
    expect(await exists(env, shelfKey(idOf(ada)))).toBe(false)
    expect(await (await api('/v1/modules', {}, ada)).json()).toEqual({ items: [] })
    expect(await errorOf(await api('/v1/modules/weather', {}, ada))).toMatchObject({ code: 'MODULE_NOT_FOUND' })
  })

  it('an upload is a version: the same one again is a duplicate, a changed one the next, and retiring keeps the numbering', async () => {
    const ada = person('ada')
    const first = await upload({ ...WEATHER, origins: ['https://api.example.com/v1?x=1'] }, ada)
    expect(first.status).toBe(201)
    const v1 = (await first.json()) as { hash: string }
    expect(v1).toMatchObject({ module: 'weather', version: 1, hash: expect.stringMatching(/^[0-9a-f]{64}$/), origins: ['https://api.example.com'], duplicate: false })
    const again = await upload({ ...WEATHER, origins: ['https://api.example.com'] }, ada)
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ version: 1, hash: v1.hash, duplicate: true })

    const changed = { ...WEATHER, code: WEATHER.code.replace('21', '22') }
    const second = await upload(changed, ada)
    expect(second.status).toBe(201)
    expect(await second.json()).toMatchObject({ version: 2, origins: [], duplicate: false })
    const read = (await (await api('/v1/modules/weather', {}, ada)).json()) as Record<string, unknown>
    expect(read).toMatchObject({ module: 'weather', version: 2, code: changed.code, tools: [tool('weather_now')] })
    expect(await (await api('/v1/modules', {}, ada)).json()).toMatchObject({ items: [{ module: 'weather', version: 2 }] })
    // Another principal sees none of it.
    expect(await (await api('/v1/modules', {}, person('bob'))).json()).toEqual({ items: [] })

    expect(await (await send('DELETE', '/v1/modules/weather', undefined, ada)).json()).toEqual({ module: 'weather', retired: true })
    expect(await (await api('/v1/modules', {}, ada)).json()).toEqual({ items: [] })
    expect(await errorOf(await send('DELETE', '/v1/modules/weather', undefined, ada))).toMatchObject({ code: 'MODULE_NOT_FOUND' })
    expect(await (await upload(WEATHER, ada)).json()).toMatchObject({ version: 3, hash: expect.any(String) })
  })

  it("a name another of the principal's modules offers is refused, and nothing is written", async () => {
    const ada = person('ada')
    expect((await upload(WEATHER, ada)).status).toBe(201)
    const before = await (await api('/v1/modules', {}, ada)).json()
    const clash = { module: 'forecast', code: 'export default { async weather_now() { return {} } }', tools: [tool('weather_now')] }
    const res = await upload(clash, ada)
    expect(res.status).toBe(409)
    expect(await errorOf(res)).toMatchObject({ code: 'TOOL_NAME_TAKEN', details: { tool: 'weather_now', by: 'module:weather' } })
    expect(await (await api('/v1/modules', {}, ada)).json()).toEqual(before)
    expect(await errorOf(await api('/v1/modules/forecast', {}, ada))).toMatchObject({ code: 'MODULE_NOT_FOUND' })
  })
})

describe('the count of modules', () => {
  it(`a principal keeps at most ${MODULE_LIMITS.modules} modules: one more is 409 TOO_MANY_MODULES and nothing is written`, async () => {
    const ada = person('ada')
    const numbered = (i: number) => ({ module: `m${i}`, code: `export default { async t${i}() { return {} } }`, tools: [tool(`t${i}`)] })
    for (let i = 0; i < MODULE_LIMITS.modules; i++) expect((await upload(numbered(i), ada)).status).toBe(201)
    const res = await upload(numbered(MODULE_LIMITS.modules), ada)
    expect(res.status).toBe(409)
    expect(await errorOf(res)).toMatchObject({ code: 'TOO_MANY_MODULES', details: { limit: MODULE_LIMITS.modules } })
    expect(((await (await api('/v1/modules', {}, ada)).json()) as { items: unknown[] }).items).toHaveLength(MODULE_LIMITS.modules)
    // A new version of a module it keeps is no new module.
    expect((await upload({ ...numbered(0), code: numbered(0).code.replace('{}', '{ v: 2 }') }, ada)).status).toBe(201)
  }, 60_000)
})

describe("a deployment's own tools", () => {
  it("no module may take a deployment tool's name: 409 TOOL_NAME_TAKEN by deployment, nothing written", async () => {
    const echo = Tool.make({ description: 'Echo', input: z.object({ text: z.string() }), output: z.object({ text: z.string() }), execute: ({ text }) => ({ text }) })
    const neuron = createNeuron({ tools: { echo } })
    const ada = person('ada')
    const body = { module: 'mine', code: 'export default { async echo() { return {} } }', tools: [tool('echo')] }
    const res = await neuron.fetch(new Request('http://neuron/v1/modules', { method: 'POST', headers: { ...(await bearer(ada)), 'content-type': 'application/json' }, body: JSON.stringify(body) }), env, createExecutionContext())
    expect(res.status).toBe(409)
    expect(await errorOf(res)).toMatchObject({ code: 'TOOL_NAME_TAKEN', details: { tool: 'echo', by: 'deployment' } })
    expect(await exists(env, shelfKey(idOf(ada)))).toBe(false)
    // Neuron's own worker has no such tool: the same upload is stored there.
    expect((await upload(body, ada)).status).toBe(201)
  })
})
