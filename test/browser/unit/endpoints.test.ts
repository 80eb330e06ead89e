import { describe, expect, it } from 'vitest'
import { Endpoint, Endpoints } from '../../../shell-web/kernel/bus/endpoints.ts'

const BG = 'app:notes:background'
const endpoint = () => new Endpoint(BG, 'notes', 'background', new MessageChannel().port1 as unknown as MessagePort)

describe('waiting for a connecting endpoint', () => {
  it('resolves once the endpoint is live and ready, not before', async () => {
    const endpoints = new Endpoints()
    const waiting = endpoints.whenReady(BG, (ep) => ep.tools.has('notes_list'), 5_000, new AbortController().signal)
    const ep = endpoints.add(endpoint())
    let resolved: Endpoint | undefined | 'pending' = 'pending'
    void waiting.then((v) => (resolved = v))
    await Promise.resolve()
    expect(resolved).toBe('pending') // connected, but the tool is not registered yet
    ep.tools.set('notes_list', {} as never)
    endpoints.settled(ep)
    expect(await waiting).toBe(ep)
    endpoints.remove(ep, 'test')
  })

  it('gives up after its bound, or when the call ends', async () => {
    const endpoints = new Endpoints()
    expect(await endpoints.whenReady(BG, () => true, 20, new AbortController().signal)).toBeUndefined()
    const abort = new AbortController()
    const waiting = endpoints.whenReady(BG, () => true, 5_000, abort.signal)
    abort.abort()
    expect(await waiting).toBeUndefined()
    const ep = endpoints.add(endpoint()) // nobody waits any more: nothing to wake
    endpoints.remove(ep, 'test')
  })
})
