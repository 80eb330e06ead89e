/**
 * The route declarations are the single source of the API contract: these tests hold them
 * to what the worker does (the body limits it enforces, the codes it answers) and
 * to what docs/api.md states, and check the generated document is complete.
 */
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import apiDoc from '../../docs/api.md?raw'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { COMMON_ERRORS, ROUTES } from '../../worker/openapi/routes.ts'
import { api } from '../support/api.ts'
import { uniqueName } from '../support/ledger.ts'
import { newSession } from '../support/session.ts'

type Operation = {
  operationId?: string
  requestBody?: unknown
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>
  'x-error-codes': string[]
  'x-max-body-bytes'?: number
}

async function document() {
  return (await (await exports.default.fetch('http://neuron/v1/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> }
}

/** The route a concrete request path matches. */
function routeOf(method: string, path: string) {
  const route = ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path))
  if (!route) throw new Error(`no route for ${method} ${path}`)
  return route
}

describe('OpenAPI contract', () => {
  it('every operation has a unique operationId, a schema for every success body, and a requestBody when it reads one', async () => {
    const doc = await document()
    const ids = new Set<string>()
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/)
        ids.add(op.operationId!)
        for (const [status, response] of Object.entries(op.responses)) {
          if (status === 'default' || status === '101') continue
          const [media] = Object.values(response.content ?? {})
          expect(media?.schema, `${method} ${path} ${status}`).toBeDefined()
        }
        if (method === 'post' || method === 'put') {
          if (op['x-max-body-bytes'] !== undefined) expect(op.requestBody, `${method} ${path}`).toBeDefined()
        }
        expect(op['x-error-codes']).toEqual(expect.arrayContaining(COMMON_ERRORS))
      }
    }
    expect(ids.size).toBe(ROUTES.length)
    expect(doc.paths['/v1/ledgers/{name}/schemas/{ref}']!.put!.requestBody).toBeDefined()
  })

  it('every documented body limit is the one enforced: one byte over is 413 before it is read', async () => {
    const { id } = await newSession('limits')
    const ledger = uniqueName('limits')
    const concrete = (path: string) => path.replace('{id}', id).replace('{name}', ledger).replace('{ref}', 'big@1')
    const withBodies = ROUTES.filter((r) => r.body)
    expect(withBodies.every((r) => r.maxBodyBytes !== undefined)).toBe(true)
    for (const route of withBodies) {
      const res = await api(concrete(route.path), { method: route.method.toUpperCase(), headers: { 'content-type': 'application/json' }, body: ' '.repeat(route.maxBodyBytes! + 1) })
      expect(res.status, `${route.method} ${route.path}`).toBe(413)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE')
      expect(route.errors).toContain('PAYLOAD_TOO_LARGE')
    }
  })

  it('docs/api.md states each route’s real body limit', () => {
    for (const route of ROUTES.filter((r) => r.maxBodyBytes !== undefined)) {
      expect(apiDoc).toContain(`| \`${route.method.toUpperCase()} ${route.path}\` | ${route.maxBodyBytes} |`)
    }
    expect(apiDoc).toContain(`| WebSocket message on \`/v1/sessions/{id}/ws\` | ${MAX_BODY_BYTES} |`)
  })

  it('the codes routes answer are the codes they document', async () => {
    const ledger = uniqueName('codes')
    const { id } = await newSession('codes')
    const json = (method: string, body: string) => ({ method, headers: { 'content-type': 'application/json' }, body })
    const cases: [string, string, RequestInit, string][] = [
      ['post', `/v1/ledgers/${ledger}/envelopes`, json('POST', '{"topic":"a b","type":"t"}'), 'INVALID_ENVELOPE'],
      ['post', `/v1/ledgers/${ledger}/envelopes`, json('POST', '{"topic":"a.b","type":"t","payload":"\\ud800"}'), 'NOT_JSON_COMPATIBLE'],
      ['post', `/v1/ledgers/${ledger}/envelopes`, json('POST', '{"topic":"a.b","type":"t","headers":[{"key":"authz","value":1}]}'), 'RESERVED_HEADER'],
      ['post', `/v1/ledgers/${ledger}/envelopes`, json('POST', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'), 'JSON_TOO_DEEP'],
      ['put', `/v1/ledgers/${ledger}/schemas/s@1`, json('PUT', '{"pattern":"("}'), 'INVALID_SCHEMA'],
      ['put', `/v1/ledgers/${ledger}/schemas/s@1`, json('PUT', '{"a":"\\ud800"}'), 'NOT_JSON_COMPATIBLE'],
      ['get', `/v1/ledgers/${ledger}/envelopes/${'0'.repeat(64)}/ancestors`, {}, 'NOT_FOUND'],
      ['get', `/v1/ledgers/${ledger}/envelopes?topic=a..b`, {}, 'INVALID_QUERY'],
      ['get', '/v1/sessions/nobody-here', {}, 'SESSION_NOT_FOUND'],
      ['post', '/v1/sessions/nobody-here/prompt', json('POST', '{"text":"hi"}'), 'SESSION_NOT_FOUND'],
      ['post', '/v1/sessions', json('POST', '{"id":"a."}'), 'INVALID_REQUEST'],
      ['post', '/v1/sessions', json('POST', `{"id":"${uniqueName('nj')}","title":"\\ud800"}`), 'NOT_JSON_COMPATIBLE'],
      ['post', `/v1/sessions/${id}/prompt`, json('POST', '{"text":"\\ud800"}'), 'NOT_JSON_COMPATIBLE'],
    ]
    for (const [method, path, init, code] of cases) {
      const res = await api(path, init)
      const got = ((await res.json()) as { error: { code: string } }).error.code
      expect(got, `${method} ${path}`).toBe(code)
      expect(routeOf(method, path.split('?')[0]!).errors, `${method} ${path} documents ${code}`).toContain(code)
    }
  })

  it('/v1/mcp documents the JSON-RPC errors its transport answers, with their shape', async () => {
    const doc = await document()
    const op = doc.paths['/v1/mcp']!.post!
    const accept = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const cases: [Record<string, string>, string, number, number][] = [
      [accept, '{not json', 400, -32700],
      [{ 'content-type': 'application/json' }, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 406, -32000],
      [{ ...accept, 'content-type': 'text/plain' }, '{}', 415, -32000],
    ]
    for (const [headers, body, status, code] of cases) {
      const res = await api('/v1/mcp', { method: 'POST', headers, body })
      expect(res.status).toBe(status)
      const answer = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } }
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } })
      const schema = op.responses[String(status)]!.content!['application/json']!.schema as { required: string[]; properties: Record<string, unknown> }
      expect(schema.required.sort()).toEqual(Object.keys(answer).sort())
    }
    // The body codes of routes that read JSON themselves are not this route's: its transport parses.
    expect(op['x-error-codes']).not.toContain('INVALID_JSON')
  })
})
