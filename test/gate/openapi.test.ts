import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { app } from '../../worker/index.ts'
import { ROUTES } from '../../worker/openapi/routes.ts'

describe('OpenAPI', () => {
  it('documents exactly the routes the worker serves', () => {
    const served = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/v1/'))
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    )
    const documented = new Set(ROUTES.map((r) => `${r.method} ${r.path}`))
    expect([...documented].sort()).toEqual([...served].sort())
  })

  it('serves an OpenAPI 3.1 document whose request schemas come from the route validators', async () => {
    const doc = (await (await exports.default.fetch('http://neuron/v1/openapi.json')).json()) as {
      openapi: string
      paths: Record<string, Record<string, { security: unknown[]; requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> }; 'x-error-codes': string[] }>>
    }
    expect(doc.openapi).toBe('3.1.0')
    const prompt = doc.paths['/v1/sessions/{id}/prompt']!.post!
    expect(Object.keys(prompt.requestBody!.content['application/json']!.schema.properties).sort()).toEqual(['delivery', 'id', 'parts', 'text'])
    expect(prompt['x-error-codes']).toEqual(expect.arrayContaining(['PROMPT_CONFLICT', 'TOKEN_EXPIRED']))
    expect(doc.paths['/v1/openapi.json']!.get!.security).toEqual([])
    const html = await (await exports.default.fetch('http://neuron/v1/docs')).text()
    expect(html).toContain('/v1/sessions/{id}/prompt')
  })
})
