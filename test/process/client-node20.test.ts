/**
 * The built client (`npm run build:client`) on Node 20, the oldest Node the
 * client promises: the bundled module drives a session against a real
 * `wrangler dev`, and the bundled CLI logs in and prints history. Node 20 is
 * the machine's own `/usr/bin/node` (the project's scripts run Node 22 from
 * the `node` devDependency); without one the test says so and is skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const NODE20 = '/usr/bin/node'
const version = existsSync(NODE20) ? execFileSync(NODE20, ['--version'], { encoding: 'utf8' }).trim() : 'none'
const isNode20 = /^v20\./.test(version)

describe.skipIf(!isNode20)(`the built client on Node 20 (${NODE20}: ${version})`, () => {
  let dev: Wrangler
  beforeAll(async () => {
    dev = await startWrangler()
  })
  afterAll(async () => dev?.stop())

  it('dist/client/index.js creates a session, prompts once, and follows its events to the end of the turn', async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'neuron-node20-')), 'drive.mjs')
    writeFileSync(
      script,
      `import { NeuronClient, NeuronApiError } from ${JSON.stringify(join(ROOT, 'dist/client/index.js'))}
const neuron = new NeuronClient({ url: process.argv[2], token: process.argv[3] })
const session = await neuron.createSession({ title: 'node 20' })
const { receipt } = await session.prompt('hello from node ' + process.version)
const types = []
for await (const frame of session.events()) {
  if (frame.kind !== 'event') continue
  types.push(frame.envelope.type)
  if (frame.envelope.type === 'session.next.drain.ended') break
}
const text = (await session.history()).items.find((e) => e.type === 'session.next.text').payload.text
const missing = await neuron.session('nope').view().catch((e) => e)
console.log(JSON.stringify({ node: process.version, status: receipt.status, types, text, missing: missing instanceof NeuronApiError ? missing.code : String(missing) }))
`,
    )
    const run = spawnSync(NODE20, [script, dev.url, await devToken('node20')], { encoding: 'utf8', timeout: 60_000 })
    expect(run.stderr).toBe('')
    const out = JSON.parse(run.stdout) as { node: string; status: string; types: string[]; text: string; missing: string }
    expect(out.node).toMatch(/^v20\./)
    expect(out.status).toBe('admitted')
    expect(out.types[0]).toBe('session.next.created')
    expect(out.types.at(-1)).toBe('session.next.drain.ended')
    expect(out.text).toBe(`Echo: hello from node ${out.node}`)
    expect(out.missing).toBe('SESSION_NOT_FOUND')
  })

  it('dist/client/neuron.js runs on Node 20: login, a piped chat, history --json, and a coded refusal', async () => {
    const env = { ...process.env, NEURON_CONFIG: join(mkdtempSync(join(tmpdir(), 'neuron-node20-cli-')), 'config.json') }
    const cli = (args: string[], input = '') => spawnSync(NODE20, [join(ROOT, 'dist/client/neuron.js'), ...args], { encoding: 'utf8', env, input, timeout: 60_000 })
    expect(cli(['login', '--url', dev.url, '--token', await devToken('node20-cli')])).toMatchObject({ status: 0, stdout: `logged in to ${dev.url} as neuron-dev#node20-cli\n` })
    const chat = cli(['chat'], 'piped on node 20\n')
    expect(chat.status).toBe(0)
    expect(chat.stdout).toContain('Echo: piped on node 20')
    const [session] = JSON.parse(cli(['sessions', '--json']).stdout) as { id: string }[]
    const history = cli(['history', session!.id, '--json']).stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string })
    expect(history[0]!.type).toBe('session.next.created')
    expect(cli(['history', 'no-such-session'])).toMatchObject({ status: 1, stderr: 'neuron: SESSION_NOT_FOUND: no session no-such-session\n' })
  })
})
