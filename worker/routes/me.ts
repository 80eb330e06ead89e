import { Hono } from 'hono'
import { settled } from '../../objects/core/rpc.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'

/** `/v1/me`: the authenticated principal and what it has used. */
export const me = new Hono<AppEnv>()
  .get('/', (c) => {
    const principal = c.get('principal')
    return c.json({ id: callerOf(c).id, issuer: principal.issuer, subject: principal.subject, claims: principal.claims, via: principal.via })
  })
  .get('/usage', async (c) => c.json(await settled(c.env.METERS.getByName(callerOf(c).id)).totals()))
