/**
 * `/v1/config`: the caller's config document (one per principal, append-only
 * versions, ETag / If-Match) and the JSON Schema it follows.
 */
import { Hono } from 'hono'
import { configJsonSchema } from '../../objects/config/schema.ts'
import { MAX_BODY_BYTES } from '../../objects/limits.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { readJson } from '../read-json.ts'

export const config = new Hono<AppEnv>()
  .get('/schema.json', (c) => c.json(configJsonSchema()))
  .get('/', async (c) => {
    const current = await c.env.CONFIGS.getByName(callerOf(c).id).current()
    c.header('etag', current.etag)
    return c.json(current)
  })
  .put('/', limitBody(MAX_BODY_BYTES), async (c) => {
    const caller = callerOf(c)
    const stored = await c.env.CONFIGS.getByName(caller.id).put(caller.id, await readJson(c.req.raw), c.req.header('if-match'))
    c.header('etag', stored.etag)
    return c.json(stored)
  })
