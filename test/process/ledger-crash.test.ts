import { afterAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

describe('ledger over a real wrangler dev process', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  afterAll(async () => dev?.stop())

  it('keeps every acknowledged envelope across kill -9', async () => {
    dev = await startWrangler({ persistTo })
    const auth = { authorization: `Bearer ${await devToken()}` }
    const acknowledged: { id: string; seq: number }[] = []
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${dev.url}/v1/ledgers/crash/envelopes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ topic: 'session.crash', type: 'note', payload: { i } }),
      })
      expect(res.status).toBe(201)
      const { envelope } = (await res.json()) as { envelope: { id: string; seq: number } }
      acknowledged.push({ id: envelope.id, seq: envelope.seq })
    }
    // Appends still in flight at the moment of the crash may or may not land; acknowledged ones must.
    const inFlight = Array.from({ length: 20 }, (_, i) =>
      fetch(`${dev!.url}/v1/ledgers/crash/envelopes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ topic: 'session.crash', type: 'note', payload: { late: i } }),
      })
        .then(async (res) => (res.status === 201 ? ((await res.json()) as { envelope: { id: string; seq: number } }).envelope : null))
        .catch(() => null),
    )
    await new Promise((r) => setTimeout(r, 5))
    await dev.crash()
    const lateAcks = (await Promise.all(inFlight)).filter((e) => e !== null)

    dev = await startWrangler({ persistTo })
    const res = await fetch(`${dev.url}/v1/ledgers/crash/envelopes?topic=session.crash&limit=1000`, { headers: auth })
    const page = (await res.json()) as { items: { id: string; seq: number; payload: unknown }[]; next: number | null }
    const ids = page.items.map((e) => e.id)
    for (const ack of [...acknowledged, ...lateAcks]) expect(ids).toContain(ack.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(page.items.slice(0, 50).map((e) => e.payload)).toEqual(acknowledged.map((_, i) => ({ i })))
    expect(page.items.map((e) => e.seq)).toEqual(page.items.map((_, i) => i + 1))
  })
})
