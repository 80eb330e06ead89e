/**
 * Every Durable Object class answers an expected failure of its RPC methods as a value, so the
 * caller gets the typed error (code and status) and workerd does not log it as "Uncaught" (it
 * logs every exception that leaves an RPC method, with a stack). Against a real `wrangler dev`:
 * one 4xx per class, provoked through the worker's own RPC path (`settled`, the test worker's
 * `/__rpc` route, test/support/rpc-worker.ts), plus the orchestration's public routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const stranger = { id: 'principal:stranger', claims: [] }
const long = 'x'.repeat(300)

/**
 * At least one provoked refusal per object class (two where a class once answered only some of its
 * methods): binding, object name, method, arguments, and the answer expected.
 */
const REFUSALS: { binding: string; name: string; method: string; args: unknown[]; code: string; status: number }[] = [
  { binding: 'SESSIONS', name: 'rpc-none', method: 'view', args: [stranger], code: 'SESSION_NOT_FOUND', status: 404 },
  { binding: 'LEDGER', name: 'rpc-ledger', method: 'append', args: [{}], code: 'INVALID_ENVELOPE', status: 400 },
  { binding: 'GRAPHS', name: 'rpc-graph', method: 'checkChain', args: [stranger, []], code: 'INVALID_GRAPH', status: 400 },
  { binding: 'GRAPHS', name: 'rpc-graph', method: 'fold', args: [stranger, 'node.note.x'], code: 'INVALID_GRAPH', status: 400 },
  { binding: 'CONFIGS', name: 'rpc-config', method: 'put', args: ['rpc-config', {}, '"v99"'], code: 'CONFIG_VERSION_MISMATCH', status: 412 },
  { binding: 'CONFIGS', name: 'rpc-config', method: 'completeMcpOAuth', args: ['rpc-config', 'srv', 'nonce', { code: 'c' }], code: 'MCP_OAUTH_STATE_INVALID', status: 400 },
  { binding: 'APP_SHELVES', name: 'rpc-shelf', method: 'record', args: [long, 'app.installed', { app: 'a', version: '1', hash: 'h' }], code: 'INVALID_ENVELOPE', status: 400 },
  { binding: 'APP_BACKENDS', name: 'rpc-backend', method: 'uninstall', args: ['p'], code: 'APP_NOT_INSTALLED', status: 404 },
  { binding: 'ORCHESTRATIONS', name: 'rpc-orch', method: 'view', args: [stranger], code: 'ORCHESTRATION_NOT_FOUND', status: 404 },
  { binding: 'DIRECTORY', name: 'shard-0', method: 'sessionsOf', args: ['owner', 0, 0], code: 'INVALID_LIMIT', status: 400 },
  { binding: 'METERS', name: 'rpc-meter', method: 'turn', args: [{ session: long, step: 's', usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0 }, cost: null }], code: 'INVALID_ENVELOPE', status: 400 },
]

/** The lines of wrangler's output since `from` that report an uncaught error. */
function uncaught(dev: Wrangler, from: number): string[] {
  return dev
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => /uncaught/i.test(line))
}

describe('an expected failure crossing RPC', () => {
  let dev: Wrangler
  beforeAll(async () => {
    dev = await startWrangler({ script: 'test/support/rpc-worker.ts' })
  })
  afterAll(() => dev?.stop())

  let markers = 0
  /**
   * The uncaught-error lines logged since output offset `from`, once the log up to now has been
   * relayed: wrangler prints workerd's log lines some time after the fact, so the test provokes
   * one uncaught error of its own (the test worker's marker) and waits for its line.
   */
  async function uncaughtSince(from: number): Promise<string[]> {
    const marker = `m${++markers}-${Date.now()}`
    expect((await fetch(`${dev.url}/__rpc/marker/${marker}`, { method: 'POST' })).status).toBe(500)
    const deadline = Date.now() + 30_000
    while (!dev.output().includes(`rpc-marker ${marker}`)) {
      if (Date.now() > deadline) throw new Error(`the marker ${marker} was never logged:\n${dev.output().slice(from)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return uncaught(dev, from).filter((line) => !line.includes('rpc-marker'))
  }

  for (const refusal of REFUSALS) {
    it(`${refusal.binding}.${refusal.method}: answered ${refusal.status} ${refusal.code}, not logged as uncaught`, async () => {
      const from = dev.output().length
      const res = await fetch(`${dev.url}/__rpc/${refusal.binding}/${refusal.name}/${refusal.method}`, { method: 'POST', body: JSON.stringify(refusal.args) })
      const body = (await res.json()) as { error?: { code: string } }
      expect({ status: res.status, code: body.error?.code }).toEqual({ status: refusal.status, code: refusal.code })
      expect(await uncaughtSince(from)).toEqual([])
    })
  }

  it('the orchestration routes: another principal reading or cancelling an orchestration gets its 404, not logged as uncaught', async () => {
    const owner = { 'content-type': 'application/json', authorization: `Bearer ${await devToken('rpc-owner')}` }
    const other = { 'content-type': 'application/json', authorization: `Bearer ${await devToken('rpc-other')}` }
    const created = await fetch(`${dev.url}/v1/orchestrations`, { method: 'POST', headers: owner, body: JSON.stringify({ id: 'rpc-orch-route', goal: 'g', plan: [{ id: 'p1', instructions: 'noop' }] }) })
    expect(created.status, await created.clone().text()).toBe(201)
    const from = dev.output().length
    const read = await fetch(`${dev.url}/v1/orchestrations/rpc-orch-route`, { headers: other })
    expect({ status: read.status, code: ((await read.json()) as { error: { code: string } }).error.code }).toEqual({ status: 404, code: 'ORCHESTRATION_NOT_FOUND' })
    const cancel = await fetch(`${dev.url}/v1/orchestrations/rpc-orch-route/cancel`, { method: 'POST', headers: owner, body: JSON.stringify({ package: 'none', reason: 'r' }) })
    expect({ status: cancel.status, code: ((await cancel.json()) as { error: { code: string } }).error.code }).toEqual({ status: 404, code: 'PACKAGE_NOT_FOUND' })
    expect(await uncaughtSince(from)).toEqual([])
  })
})
