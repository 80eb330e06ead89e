/**
 * The gate's cost: requests/s through the full stage pipeline
 * (audit → authenticate (ES256 JWT) → meter → route → session authorize) vs the
 * same route with the gate removed (a fixed principal, no stages), in one run.
 */
import { env } from 'cloudflare:workers'
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { Hono } from 'hono'
import { describe, it } from 'vitest'
import { token } from '../../test/support/auth.ts'
import type { AppEnv } from '../../worker/env.ts'
import { app } from '../../worker/index.ts'
import { onError } from '../../worker/on-error.ts'
import { sessions } from '../../worker/routes/sessions.ts'

const N = 2000
const CONCURRENCY = 8

async function rate(fetcher: (request: Request) => Promise<Response>, make: () => Request): Promise<number> {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) {
        const res = await fetcher(make())
        if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${await res.text()}`)
        await res.arrayBuffer()
      }
    }),
  )
  return N / ((performance.now() - start) / 1000)
}

describe('gate', () => {
  it('requests/s with the full stage pipeline vs the gate removed', async () => {
    const bearer = `Bearer ${await token({ sub: 'bench' })}`
    const principal = { issuer: 'https://issuer.test', subject: 'bench', claims: [], via: 'bearer' as const }
    const ungated = new Hono<AppEnv>()
      .use(async function fixedPrincipal(c, next) {
        c.set('principal', principal)
        await next()
      })
      .route('/v1/sessions', sessions)
    ungated.onError(onError)

    const ctx = createExecutionContext()
    const create = await app.fetch(
      new Request('http://neuron/v1/sessions', { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: '{"id":"bench-gate"}' }),
      env,
      ctx,
    )
    if (create.status !== 201) throw new Error(`create: ${create.status} ${await create.text()}`)
    const read = () => new Request('http://neuron/v1/sessions/bench-gate', { headers: { authorization: bearer } })
    // Distinct tokens of the same subject: every request pays a full ES256 signature check.
    const fresh = await Promise.all(Array.from({ length: N * 3 }, (_, i) => token({ sub: 'bench', claims: [`nonce:${i}`] })))
    let f = 0
    const readFresh = () => new Request('http://neuron/v1/sessions/bench-gate', { headers: { authorization: `Bearer ${fresh[f++]}` } })
    const rounds: { gated: number; bare: number; cold: number }[] = []
    for (let round = 0; round < 3; round++) {
      const bare = await rate(async (r) => ungated.fetch(r, env, ctx), read)
      const gated = await rate(async (r) => app.fetch(r, env, ctx), read)
      const cold = await rate(async (r) => app.fetch(r, env, ctx), readFresh)
      rounds.push({ gated, bare, cold })
    }
    await waitOnExecutionContext(ctx)
    const best = (k: 'gated' | 'bare' | 'cold') => Math.max(...rounds.map((r) => r[k]))
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
    console.log(`\ngate pipeline, GET /v1/sessions/:id, ${N} requests × 3 rounds, ${CONCURRENCY} in flight (best round)`)
    console.log(`  gate removed (fixed principal)           ${fmt(best('bare'))} req/s`)
    console.log(`  full pipeline, a client's repeat token   ${fmt(best('gated'))} req/s   ratio ${(best('gated') / best('bare')).toFixed(2)}   (target ≥ 0.8)`)
    console.log(`  full pipeline, a new token every request ${fmt(best('cold'))} req/s   ratio ${(best('cold') / best('bare')).toFixed(2)}   (ES256 verify each time)`)
  })
})
