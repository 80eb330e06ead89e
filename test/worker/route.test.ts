/**
 * `route` and `mount` (worker/route.ts): a declaration is served where it says, with the body
 * limit it declares, and an area cannot mount a route that is not under it.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../../worker/env.ts'
import { onError } from '../../worker/on-error.ts'
import { mount, route } from '../../worker/route.ts'

const echo = route({
  method: 'post',
  path: '/v1/things/{id}/echo',
  operationId: 'echoThing',
  summary: 'echo',
  auth: 'bearer',
  maxBodyBytes: 8,
  ok: { 200: 'the body' },
  errors: ['PAYLOAD_TOO_LARGE'],
  handler: async (c) => c.json({ id: c.req.param('id'), body: await c.req.text() }),
})

function served() {
  const app = new Hono<AppEnv>()
  app.route('/v1/things', mount('/v1/things', [echo]))
  app.onError(onError)
  return app
}

describe('route declarations', () => {
  it('serve the declared method and path, with the path parameters named in braces', async () => {
    const res = await served().request('/v1/things/t1/echo', { method: 'POST', body: '12345678' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: 't1', body: '12345678' })
    expect((await served().request('/v1/things/t1/echo', { method: 'GET' })).status).toBe(404)
  })

  it('enforce the declared body limit: one byte over is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await served().request('/v1/things/t1/echo', { method: 'POST', body: '123456789' })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('refuse to mount a route outside the area', () => {
    expect(() => mount('/v1/other', [echo])).toThrow('/v1/things/{id}/echo is not under /v1/other')
    // A prefix of a segment is not the area: /v1/thing is not /v1/things.
    expect(() => mount('/v1/thing', [echo])).toThrow('/v1/things/{id}/echo is not under /v1/thing')
  })
})
