/**
 * A newcomer's `npm start`, offline: the terminal shows wrangler's banner and one line per request,
 * no DNS stack trace (the `Request.cf` lookup is off) and no audit JSON; `--var NEURON_AUDIT:log`
 * brings the audit lines back (a deployment writes them by default).
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { readDevVar, signDevToken } from '../../scripts/dev-token.mjs'
import { DEV_VARS, ensureDevVars } from '../../scripts/dev-vars.mjs'
import { freePorts, tempPersistDir } from '../support/wrangler.ts'

const ROOT = new URL('../..', import.meta.url).pathname

/** `npm start -- …extra` on free ports; three requests; the terminal's text once they are logged. */
async function startAndAsk(extra: string[]): Promise<string> {
  const [port, inspector] = await freePorts(2)
  const child = spawn('npm', ['start', '--', '--port', String(port), '--inspector-port', String(inspector), '--persist-to', tempPersistDir(), '--show-interactive-dev-session=false', ...extra], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk) => (out += chunk))
  child.stderr.on('data', (chunk) => (out += chunk))
  try {
    const url = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 90_000
    for (;;) {
      const up = await fetch(`${url}/health`).then((r) => r.ok, () => false)
      if (up) break
      if (Date.now() > deadline) throw new Error(`npm start did not serve /health:\n${out}`)
      await new Promise((r) => setTimeout(r, 300))
    }
    ensureDevVars()
    const token = await signDevToken({ secret: readDevVar('DEV_AUTH_SECRET', DEV_VARS)!, sub: 'quiet' })
    const auth = { authorization: `Bearer ${token}` }
    await fetch(`${url}/v1/me`, { headers: auth })
    await fetch(`${url}/v1/sessions`, { method: 'POST', headers: auth, body: '{"id":"quiet"}' })
    await fetch(`${url}/v1/sessions/nope`, { headers: auth })
    await new Promise((r) => setTimeout(r, 1500)) // the audit flushes after 250 ms
    return out
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {}
    await new Promise((r) => setTimeout(r, 500))
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {}
  }
}

describe('npm start, offline', () => {
  it('is quiet: no DNS stack trace, no audit JSON, one line per request', async () => {
    const out = await startAndAsk([])
    expect(out).toContain('Ready on http://127.0.0.1:')
    expect(out).not.toMatch(/Request\.cf|getaddrinfo|ENOTFOUND/)
    expect(out).not.toContain('"audit":"request"')
    expect(out.match(/^\[wrangler:info\] (GET|POST) \/v1\//gm)).toHaveLength(3)
  })

  it('writes the audit lines when asked to (NEURON_AUDIT=log)', async () => {
    const out = await startAndAsk(['--var', 'NEURON_AUDIT:log'])
    const audits = out.split('\n').filter((line) => line.includes('"audit":"request"'))
    expect(audits.map((line) => JSON.parse(line.slice(line.indexOf('{'))).route)).toEqual(expect.arrayContaining(['/v1/me', '/v1/sessions', '/v1/sessions/:id']))
  })
})
