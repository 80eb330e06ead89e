import { Hono } from 'hono'
import type { AppEnv } from '../env.ts'

/** `GET /health`: liveness, with no dependencies touched. */
export const health = new Hono<AppEnv>().get('/', (c) => c.json({ ok: true, service: 'neuron' }))
