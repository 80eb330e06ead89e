import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'

describe('smoke', () => {
  it('health', async () => {
    const res = await exports.default.fetch('http://x/health')
    expect(await res.json()).toEqual({ ok: true, service: 'neuron' })
  })
  it('append + rpc error', async () => {
    const stub = env.LEDGER.getByName('smoke')
    const a = await stub.append({ topic: 'session.s1', type: 'note', author: 'u', payload: { x: 1 } })
    expect(a.envelope.seq).toBe(1)
    const err = await stub.append({ topic: 'bad topic', type: 'note', author: 'u' }).catch((e: unknown) => e)
    console.log("CAUSE", err instanceof Error, (err as any).name, (err as any).code, (err as any).status, JSON.stringify((err as any).details))
  })
})
