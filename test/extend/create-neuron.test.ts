/**
 * `createNeuron` (worker/neuron.ts): a deployment's tools, catalog rows, agent profiles and stages,
 * checked when the Worker module is evaluated. A tool that would shadow a built-in, a name no vendor accepts, a value
 * not made with `Tool.make`, or a vendor row that repeats a bundled one is refused with a code; a
 * deployment that adds nothing gets Neuron's own classes. Every name a real session registers is in
 * `BUILTIN_TOOL_NAMES`, so the shadowing check cannot fall behind a new built-in.
 */
import { env } from 'cloudflare:workers'
import { createExecutionContext, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BUILTIN_TOOL_NAMES } from '../../objects/extend/extensions.ts'
import { CATALOG_SNAPSHOT } from '../../objects/llm/catalog-snapshot.ts'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { SessionObject } from '../../objects/session/wiring/session-object.ts'
import type { ToolRegistry } from '../../objects/tools/registry.ts'
import { Tool } from '../../objects/tools/tool.ts'
import { createNeuron } from '../../worker/neuron.ts'
import { bearer } from '../support/auth.ts'
import { codeOf } from '../support/codes.ts'
import { newSession } from '../support/session.ts'

const echo = Tool.make({
  description: 'Echo the text back',
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string() }),
  execute: ({ text }) => ({ text }),
})

describe('createNeuron', () => {
  it('refuses a tool that shadows a built-in, TOOL_NAME_TAKEN, for every built-in name', () => {
    for (const name of BUILTIN_TOOL_NAMES) expect(codeOf(() => createNeuron({ tools: { [name]: echo } })), name).toBe('TOOL_NAME_TAKEN')
  })

  it('refuses a name no vendor accepts, a tool not made with Tool.make, and a vendor that repeats one', () => {
    for (const name of ['', 'has.dot', 'has space', 'x'.repeat(65)]) expect(codeOf(() => createNeuron({ tools: { [name]: echo } })), name).toBe('TOOL_NAME_INVALID')
    expect(codeOf(() => createNeuron({ tools: { echo: { execute: () => 'hi' } as never } }))).toBe('TOOL_INVALID')
    expect(codeOf(() => createNeuron({ models: [{ ...CATALOG_SNAPSHOT[0]!, models: [] }] }))).toBe('PROVIDER_TAKEN')
  })

  it('checks its agent profiles as the config document does: AGENT_NAME_INVALID, AGENT_INVALID naming the field, AGENTS_TOO_MANY', () => {
    const neuron = createNeuron({ agents: { reviewer: { description: 'Reads only', tools: ['read', 'grep'], maxSteps: 4 } } })
    expect(neuron.extensions.agents.get('reviewer')).toEqual({ description: 'Reads only', tools: ['read', 'grep'], maxSteps: 4 })
    expect(Object.isFrozen(neuron.extensions.agents.get('reviewer'))).toBe(true)
    expect(neuron.SessionObject.extensions.agents).toBe(neuron.extensions.agents)
    for (const name of ['', 'Reviewer', 'has space', '-lead', 'x'.repeat(65)]) expect(codeOf(() => createNeuron({ agents: { [name]: {} } })), name).toBe('AGENT_NAME_INVALID')
    let error: unknown
    try {
      createNeuron({ agents: { reviewer: { tools: ['read'], temprature: 0.2 } as never } })
    } catch (caught) {
      error = caught
    }
    expect(error).toMatchObject({ code: 'AGENT_INVALID', status: 500, details: { agent: 'reviewer', issues: [expect.objectContaining({ message: expect.stringContaining('temprature') })] } })
    expect(codeOf(() => createNeuron({ agents: { reviewer: { maxSteps: 0 } } }))).toBe('AGENT_INVALID')
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`agent${i}`, {}]))
    expect(codeOf(() => createNeuron({ agents: many }))).toBe('AGENTS_TOO_MANY')
  })

  it('a deployment that adds nothing gets Neuron\'s own classes; one that adds gets subclasses over its extensions', () => {
    const plain = createNeuron()
    expect(plain.SessionObject).toBe(SessionObject)
    const vendor = { id: 'acme', name: 'Acme', endpoint: 'openai/completions', baseUrl: 'https://llm.acme.test/v1', env: ['ACME_API_KEY'], models: [{ id: 'acme-1', name: 'Acme 1', limits: { context: 32_000, output: 4_000 }, modalities: { input: ['text' as const], output: ['text' as const] }, toolCall: true, reasoning: false, cost: { input: 1, output: 2 } }] }
    const custom = createNeuron({ tools: { echo }, models: [vendor] })
    expect(Object.getPrototypeOf(custom.SessionObject)).toBe(SessionObject)
    expect(custom.SessionObject.extensions.tools.get('echo')).toBe(echo)
    expect(custom.OrchestrationObject.extensions).toBe(custom.extensions)
    // The added vendor is a catalog row like the bundled ones: keyed by its env variable.
    const catalog = composeCatalog({ ACME_API_KEY: 'k' }, custom.extensions.rows)
    expect(catalog.get('acme', 'acme-1')).toMatchObject({ provider: { enabled: true, baseUrl: 'https://llm.acme.test/v1' }, model: { limits: { context: 32_000 } } })
  })

  it("a deployment's stage runs after authentication, on the principal the gate found", async () => {
    const seen: string[] = []
    const neuron = createNeuron({
      stages: [
        async (c, next) => {
          seen.push(c.get('principal').subject)
          if (c.req.header('x-refuse')) return c.json({ error: { code: 'REFUSED_BY_STAGE', message: 'the deployment refuses this request' } }, 403)
          await next()
        },
      ],
    })
    const call = (headers: Record<string, string>) => neuron.fetch(new Request('http://neuron/v1/me', { headers }), env, createExecutionContext())
    expect((await call({})).status).toBe(401)
    expect(seen).toEqual([])
    const refused = await call({ ...(await bearer('ada')), 'x-refuse': '1' })
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'REFUSED_BY_STAGE'])
    expect((await call(await bearer('ada'))).status).toBe(200)
    expect(seen).toEqual(['ada', 'ada'])
  })

  it('every tool a session registers itself is a built-in name a deployment may not take', async () => {
    const { stub } = await newSession('builtin-names')
    const names = await runInDurableObject(stub as unknown as DurableObjectStub<SessionObject>, async (object: SessionObject) => {
      // What a session offers is read once its agent profile (`default`: every tool) is resolved, as before a drain.
      const session = object as unknown as { tools: ToolRegistry; profile: { refresh(): Promise<void> } }
      await session.profile.refresh()
      return [...session.tools.snapshot().keys()]
    })
    expect(names.length).toBeGreaterThan(0)
    expect(names.filter((name) => !BUILTIN_TOOL_NAMES.includes(name))).toEqual([])
  })
})
