/**
 * `/v1/config`: the caller's config document (one per principal, append-only
 * versions, ETag / If-Match) and the JSON Schema it follows.
 */
import { Hono } from 'hono'
import { etagOf } from '../../objects/config/config-object.ts'
import { ConfigSchema, configJsonSchema } from '../../objects/config/schema.ts'
import { parseOrThrow } from '../../objects/validate.ts'
import { MAX_BODY_BYTES } from '../../objects/limits.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { exists, register } from '../directory.ts'
import { readJson } from '../read-json.ts'

export const config = new Hono<AppEnv>()
  .get('/schema.json', (c) => c.json(configJsonSchema()))
  .get('/', async (c) => {
    const id = callerOf(c).id
    // Reads create no storage: a principal that never wrote a config has the empty version 0.
    const current = (await exists(c.env, `config:${id}`)) ? await c.env.CONFIGS.getByName(id).current() : { version: 0, etag: etagOf(0), document: {} }
    c.header('etag', current.etag)
    return c.json(current)
  })
  .put('/', limitBody(MAX_BODY_BYTES), async (c) => {
    const caller = callerOf(c)
    const body = await readJson(c.req.raw)
    // Checked here, then registered before the object writes: a request never writes and then fails.
    parseOrThrow(ConfigSchema, body, 'INVALID_CONFIG')
    await register(c.env, `config:${caller.id}`)
    const stored = await c.env.CONFIGS.getByName(caller.id).put(caller.id, body, c.req.header('if-match'))
    c.header('etag', stored.etag)
    return c.json(stored)
  })
