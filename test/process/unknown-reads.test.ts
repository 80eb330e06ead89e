/**
 * Reads of sessions and ledgers that do not exist leave nothing behind: no
 * SQLite file appears for them under `wrangler dev`'s persist directory. Only
 * the fixed set of directory shards (and the caller's meter) may appear.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DIRECTORY_SHARDS } from '../../objects/core/limits.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

/** The object databases of one class under the persist dir (`*.sqlite`, not workerd's metadata). */
function databases(persistTo: string, className: string): string[] {
  const dir = join(persistTo, 'v3', 'do', `neuron-${className}`)
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite' && statSync(join(dir, name)).isFile())
  } catch {
    return []
  }
}

describe('reads of unknown ids (real wrangler dev)', () => {
  let dev: Wrangler | undefined
  afterAll(async () => dev?.stop())

  it('40 GETs of unknown sessions and ledgers create no session or ledger database', async () => {
    dev = await startWrangler()
    const auth = { authorization: `Bearer ${await devToken()}` }
    const get = (path: string) => fetch(`${dev!.url}${path}`, { headers: auth })
    const statuses: number[] = []
    for (let i = 0; i < 10; i++) {
      statuses.push((await get(`/v1/sessions/ghost-${i}`)).status)
      statuses.push((await get(`/v1/sessions/ghost-${i}/history`)).status)
      statuses.push((await get(`/v1/ledgers/ghost-${i}/head`)).status)
      statuses.push((await get(`/v1/ledgers/ghost-${i}/envelopes?topic=a.b`)).status)
    }
    expect(statuses.filter((s) => s === 404)).toHaveLength(20)
    expect(statuses.filter((s) => s === 200)).toHaveLength(20)
    expect(databases(dev.persistTo, 'SessionObject')).toEqual([])
    expect(databases(dev.persistTo, 'LedgerObject')).toEqual([])
    expect(databases(dev.persistTo, 'DirectoryObject').length).toBeLessThanOrEqual(DIRECTORY_SHARDS)

    // A write creates exactly its object, and then reads reach it.
    const created = await fetch(`${dev.url}/v1/sessions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"id":"real"}' })
    expect(created.status).toBe(201)
    expect((await get('/v1/sessions/real')).status).toBe(200)
    const appended = await fetch(`${dev.url}/v1/ledgers/real/envelopes`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"topic":"a.b","type":"t"}' })
    expect(appended.status).toBe(201)
    expect(await (await get('/v1/ledgers/real/head')).json()).toEqual({ seq: 1 })
    expect(databases(dev.persistTo, 'SessionObject')).toHaveLength(1)
    expect(databases(dev.persistTo, 'LedgerObject')).toHaveLength(1)
  })
})
