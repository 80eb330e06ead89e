/**
 * The one error → answer rule (objects/core/failure.ts) and failures across RPC
 * (objects/core/rpc.ts): typed errors answer with their status and are not logged;
 * anything else is 500 INTERNAL, logged once with its stack.
 */
import { env } from 'cloudflare:workers'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { failureOf, failureResponse } from '../../objects/core/failure.ts'
import { answerFailures, settle, settled } from '../../objects/core/rpc.ts'
import { ownerCaller } from '../support/session.ts'

class Probe {
  value() {
    return { ok: true }
  }
  missing(): { ok: boolean } {
    throw new NeuronError('PROBE_MISSING', 'no such thing', { status: 404, details: { id: 'x' } })
  }
  async later(): Promise<{ ok: boolean }> {
    throw new NeuronError('PROBE_LATER', 'refused later', { status: 409 })
  }
  broken(): { ok: boolean } {
    throw new TypeError('a bug')
  }
}
answerFailures(Probe, ['value', 'missing', 'later', 'broken'])

describe('one error → answer rule', () => {
  afterEach(() => vi.restoreAllMocks())

  it('answers a NeuronError with its status and body and does not log it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    const res = failureResponse(new NeuronError('GONE', 'it went', { status: 410, details: { why: 'test' } }), 'test')
    expect(res.status).toBe(410)
    expect(await res.json()).toEqual({ error: { code: 'GONE', message: 'it went', details: { why: 'test' } } })
    expect(log).not.toHaveBeenCalled()
  })

  it('answers anything else 500 INTERNAL without details, logged once with its stack', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(failureOf(new RangeError('secret internals'), 'SessionObject.fetch')).toEqual({ status: 500, error: { code: 'INTERNAL', message: 'internal error' } })
    expect(log).toHaveBeenCalledTimes(1)
    expect(String(log.mock.calls[0]![0])).toContain('SessionObject.fetch')
    expect(String(log.mock.calls[0]![1])).toMatch(/RangeError: secret internals\n\s+at /)
  })

  it('RPC methods answer failures as values, and settle throws the same typed error again', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    const probe = new Probe()
    expect(probe.value()).toEqual({ ok: true })
    expect(() => probe.missing()).not.toThrow()
    const thrown = (() => {
      try {
        settle(probe.missing())
      } catch (error) {
        return error
      }
    })()
    expect(thrown).toBeInstanceOf(NeuronError)
    expect(thrown).toMatchObject({ code: 'PROBE_MISSING', status: 404, details: { id: 'x' } })
    await expect(probe.later().then(settle)).rejects.toMatchObject({ code: 'PROBE_LATER', status: 409 })
    expect(log).not.toHaveBeenCalled()
    expect(() => settle(probe.broken())).toThrow(expect.objectContaining({ code: 'INTERNAL', status: 500 }))
    expect(log).toHaveBeenCalledTimes(1)
  })

  it('a session object answers an expected 404 over RPC instead of throwing; a settled stub throws it', async () => {
    const raw = env.SESSIONS.getByName('failure-never-created')
    // The object does not throw (workerd would log that as "Uncaught"), it answers the failure.
    expect(await raw.view(ownerCaller)).toHaveProperty('__neuronFailure.error.code', 'SESSION_NOT_FOUND')
    const error = await settled(raw)
      .view(ownerCaller)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NeuronError)
    expect(error).toMatchObject({ code: 'SESSION_NOT_FOUND', status: 404 })
  })
})
