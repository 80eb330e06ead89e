/**
 * The `neuron` CLI in a real pseudo-terminal (tmux) against a real `wrangler
 * dev`, through a TCP proxy the test can cut: login, a chat that streams,
 * shows tool calls compactly, survives a network drop, Ctrl-C interrupts the
 * turn and a second Ctrl-C exits; plus the script-facing behaviour (--json,
 * exit codes, no colour off a TTY, no stack traces for expected errors), and a permission request
 * answered at the chat's prompt (once, and rejected with a reason).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { CLI, runCli } from '../support/cli.ts'
import { startMcpServer } from '../support/mcp-server.ts'
import { type Proxy, startProxy } from '../support/proxy.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const TMUX = ['-L', `neuron-cli-test-${process.pid}`]

describe('neuron CLI against a real server', () => {
  let dev: Wrangler
  let proxy: Proxy
  const config = join(mkdtempSync(join(tmpdir(), 'neuron-cli-')), 'config.json')
  const env = { ...process.env, NEURON_CONFIG: config, NO_COLOR: '' }
  const cli = (args: string[], input = '') => runCli(args, { env, input })
  const run = (...args: string[]) => cli(args)
  const tmux = (...args: string[]) => execFileSync('tmux', [...TMUX, ...args], { encoding: 'utf8' })
  const screen = (pane = 'chat') => tmux('capture-pane', '-p', '-t', pane)

  async function until(what: string, check: (text: string) => boolean, timeoutMs = 30_000, pane = 'chat'): Promise<string> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const text = screen(pane)
      if (check(text)) return text
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${text}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  /** The chat shows its prompt again: the turn is over (a person types then, and so does this test). */
  const prompting = (t: string) => t.trimEnd().split('\n').at(-1)!.trim() === '›'

  beforeAll(async () => {
    dev = await startWrangler()
    proxy = await startProxy(dev.port)
  })
  afterAll(async () => {
    try {
      tmux('kill-server')
    } catch {}
    await proxy?.close()
    await dev?.stop()
  })

  it('logs in, refuses usage errors with exit 2 and server refusals with exit 1, no stack traces', async () => {
    const login = await run('login', '--url', proxy.url, '--token', await devToken('cli'), '--json')
    expect(login.stderr).toBe('')
    expect(login.status).toBe(0)
    expect(JSON.parse(login.stdout)).toMatchObject({ url: proxy.url, id: 'neuron-dev#cli', via: 'dev' })
    expect((await run('--help')).stdout).toContain('Usage: neuron <command>')
    for (const command of ['login', 'sessions', 'chat', 'tail', 'history']) expect(await run(command, '--help')).toMatchObject({ status: 0, stdout: expect.stringContaining(`Usage: neuron ${command}`) })
    expect(await run('frobnicate')).toMatchObject({ status: 2, stderr: 'neuron: unknown command "frobnicate" (see neuron --help)\n' })
    expect(await run('history')).toMatchObject({ status: 2, stderr: 'neuron: ID is required\n' })
    const missing = await run('history', 'no-such-session')
    expect(missing).toMatchObject({ status: 1, stderr: 'neuron: SESSION_NOT_FOUND: no session no-such-session\n' })
    const bad = await run('login', '--url', proxy.url, '--token', 'nope')
    expect(bad).toMatchObject({ status: 1, stderr: 'neuron: TOKEN_MALFORMED: the token is not a JWT\n' })
  })

  it('chat from a pipe: answers every line, no colour off a TTY, then history --json and sessions --json', async () => {
    const chat = await cli(['chat'], 'piped hello\n/tool calculator {"expression":"6*7"}\n')
    expect(chat.status).toBe(0)
    expect(chat.stdout).toContain('Echo: piped hello')
    expect(chat.stdout).toContain('⚙ calculator({"expression":"6*7"})')
    expect(chat.stdout).toContain('✓ 6*7 = 42')
    expect(chat.stdout).not.toContain('\x1b[')
    const [session] = JSON.parse((await run('sessions', '--json')).stdout) as { id: string; status: string }[]
    expect(session!.status).toBe('idle')
    const lines = (await run('history', session!.id, '--json')).stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number; type: string })
    expect(lines[0]!.type).toBe('session.next.created')
    expect(lines.filter((e) => e.type === 'session.next.admitted')).toHaveLength(2)
  })

  it('in a terminal: streams, shows tools compactly, resumes after a network drop, Ctrl-C interrupts, twice exits', async () => {
    const script = join(tmpdir(), `neuron-chat-${process.pid}.sh`)
    writeFileSync(script, `#!/bin/sh\nNEURON_CONFIG='${config}' '${process.execPath}' '${CLI}' chat\necho "EXIT=$?"\nsleep 60\n`, { mode: 0o755 })
    tmux('new-session', '-d', '-s', 'chat', '-x', '100', '-y', '30', script)
    await until('the prompt', (t) => t.includes('›'))

    tmux('send-keys', '-t', 'chat', 'hello from a terminal', 'Enter')
    await until('the echo', (t) => t.includes('Echo: hello from a terminal') && prompting(t))

    tmux('send-keys', '-t', 'chat', '/tool calculator {"expression":"2+3"}', 'Enter')
    await until('the tool result', (t) => t.includes('Tool results: calculator returned 2+3 = 5') && prompting(t))
    expect(screen()).toContain('⚙ calculator({"expression":"2+3"})')

    // A network drop while a 2-second tool runs: the chat says so, reconnects, and shows the rest.
    tmux('send-keys', '-t', 'chat', '/tool wait {"ms":2000}', 'Enter')
    await until('the wait to start', (t) => t.includes('⚙ wait({"ms":2000})'))
    expect(proxy.drop()).toBeGreaterThan(0)
    await until('the reconnect and the rest of the turn', (t) => t.includes('connection lost; reconnecting…') && t.includes('Tool results: wait returned') && prompting(t))

    // Ctrl-C interrupts the running turn; the session is still there.
    tmux('send-keys', '-t', 'chat', '/tool wait {"ms":30000}', 'Enter')
    await until('the long wait to start', (t) => t.includes('⚙ wait({"ms":30000})'))
    tmux('send-keys', '-t', 'chat', 'C-c')
    await until('the interrupt', (t) => t.includes('^C interrupting the turn') && /\ninterrupted\n/.test(t))
    tmux('send-keys', '-t', 'chat', 'C-c')
    const final = await until('the exit', (t) => t.includes('EXIT=130'))
    console.log(`chat screen:\n${final}`)
    expect(final).not.toMatch(/at .*\.ts:\d+/)
  })

  it('Ctrl-C interrupts the turn on screen: when the screen lags, the queued prompt that started meanwhile runs, and the CLI says the turn had ended', async () => {
    const script = join(tmpdir(), `neuron-chat-lag-${process.pid}.sh`)
    writeFileSync(script, `#!/bin/sh\nNEURON_CONFIG='${config}' '${process.execPath}' '${CLI}' chat\necho "EXIT=$?"\nsleep 60\n`, { mode: 0o755 })
    tmux('new-session', '-d', '-s', 'lag', '-x', '120', '-y', '40', script)
    const started = await until('the prompt', (t) => t.includes('›'), 30_000, 'lag')
    const id = /session (\S+) ·/.exec(started)![1]!
    // Straight to the server: the proxy holds its connections below.
    const session = new NeuronClient({ url: dev.url, token: await devToken('cli') }).session(id)

    tmux('send-keys', '-t', 'lag', '/tool wait {"ms":1500}', 'Enter')
    await until('the first wait to start', (t) => t.includes('⚙ wait({"ms":1500})'), 30_000, 'lag')
    const first = (await session.view()).step
    expect(first).not.toBeNull()
    tmux('send-keys', '-t', 'lag', '/tool wait {"ms":4000}', 'Enter')
    await poll('the second prompt admitted', async () => (await session.view()).pending === 1)
    // The server goes on; the terminal stops hearing of it: it still shows the first turn running.
    expect(proxy.hold()).toBeGreaterThan(0)
    await poll('the queued turn to start', async () => {
      const { step } = await session.view()
      return step !== null && step !== first
    })
    tmux('send-keys', '-t', 'lag', 'C-c')
    await until('the interrupt to be sent', (t) => t.includes('^C interrupting the turn'), 30_000, 'lag')
    await new Promise((r) => setTimeout(r, 500))
    proxy.release()
    const final = await until('the queued turn to finish', (t) => t.includes('the interrupt arrived after the turn had ended') && (t.match(/Tool results: wait returned/g) ?? []).length === 2 && prompting(t), 30_000, 'lag')
    expect(final).not.toMatch(/\ninterrupted\n/)
    const history = (await session.history({ limit: 500 })).items.map((e) => e.type)
    expect(history).not.toContain('session.next.interrupt.requested')
    tmux('send-keys', '-t', 'lag', 'C-d')
    await until('the exit', (t) => t.includes('EXIT=0'), 30_000, 'lag')
  })

  it('chat takes multi-line prompts (a trailing \\, a """ block) and shows an MCP tool\'s progress in place', async () => {
    const mcp = await startMcpServer()
    try {
      const token = await devToken('cli')
      const neuron = new NeuronClient({ url: dev.url, token })
      const session = await neuron.createSession({ title: 'multi-line' })
      const put = await fetch(`${dev.url}/v1/sessions/${session.id}/config`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ mcpServers: [{ name: 'test', url: `${mcp.url}/sse/mcp` }], permission: { rules: [{ source: 'mcp:*', action: 'allow' }] } }) })
      expect(put.status).toBe(200)
      const script = join(tmpdir(), `neuron-chat-lines-${process.pid}.sh`)
      writeFileSync(script, `#!/bin/sh\nNEURON_CONFIG='${config}' '${process.execPath}' '${CLI}' chat ${session.id}\necho "EXIT=$?"\nsleep 60\n`, { mode: 0o755 })
      tmux('new-session', '-d', '-s', 'lines', '-x', '120', '-y', '40', script)
      await until('the prompt', (t) => t.includes('›'), 30_000, 'lines')

      tmux('send-keys', '-t', 'lines', '-l', 'add these\\')
      tmux('send-keys', '-t', 'lines', 'Enter')
      tmux('send-keys', '-t', 'lines', '-l', '/tool calculator {"expression":"6*7"}')
      tmux('send-keys', '-t', 'lines', 'Enter')
      await until('the continued prompt to be answered', (t) => t.includes('✓ 6*7 = 42') && prompting(t), 30_000, 'lines')
      for (const line of ['"""', 'a pasted block', '/tool calculator {"expression":"1+1"}', '"""']) {
        tmux('send-keys', '-t', 'lines', '-l', line)
        tmux('send-keys', '-t', 'lines', 'Enter')
      }
      await until('the block to be answered', (t) => t.includes('✓ 1+1 = 2') && prompting(t), 30_000, 'lines')
      const admitted = (await session.history({ limit: 500 })).items.filter((e) => e.type === 'session.next.admitted').map((e) => (e.payload as { text: string }).text)
      expect(admitted).toEqual(['add these\n/tool calculator {"expression":"6*7"}', 'a pasted block\n/tool calculator {"expression":"1+1"}'])

      tmux('send-keys', '-t', 'lines', '-l', '/tool mcp.test.slow {"ms":3000}')
      tmux('send-keys', '-t', 'lines', 'Enter')
      const during = await until('the progress line', (t) => /⋯ step \d+ of 30 {2}\d+\/30/.test(t), 30_000, 'lines')
      const final = await until('the slow call to end', (t) => t.includes('✓ slept 3000 ms') && prompting(t), 30_000, 'lines')
      // One line redrawn in place: the finished screen holds no progress line at all.
      expect(final).not.toMatch(/⋯ step/)
      console.log(`progress, while it ran:\n${during}`)
      tmux('send-keys', '-t', 'lines', 'C-d')
      await until('the exit', (t) => t.includes('EXIT=0'), 30_000, 'lines')
    } finally {
      await mcp.close()
    }
  })

  it('chat prompts on a permission request: o runs the call once, r with a reason rejects it and the model reads why', async () => {
    const token = await devToken('cli')
    const session = await new NeuronClient({ url: dev.url, token }).createSession({ title: 'approvals' })
    // Its own login, straight to the server: this test needs nothing of the others.
    const own = join(mkdtempSync(join(tmpdir(), 'neuron-cli-ask-')), 'config.json')
    expect((await runCli(['login', '--url', dev.url, '--token', token], { env: { ...env, NEURON_CONFIG: own } })).status).toBe(0)
    const script = join(tmpdir(), `neuron-chat-ask-${process.pid}.sh`)
    writeFileSync(script, `#!/bin/sh\nNEURON_CONFIG='${own}' '${process.execPath}' '${CLI}' chat ${session.id}\necho "EXIT=$?"\nsleep 60\n`, { mode: 0o755 })
    tmux('new-session', '-d', '-s', 'ask', '-x', '140', '-y', '40', script)
    await until('the prompt', (t) => t.includes('›'), 30_000, 'ask')
    const asking = (t: string) => t.trimEnd().split('\n').at(-1)!.includes('allow? [o]nce / [a]lways / [r]eject [reason] ›')
    const outcomes = async () =>
      (await session.history({ limit: 500 })).items
        .filter((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
        .map((e) => ({ type: e.type, error: (e.payload as { error?: { code: string; message: string } }).error }))

    // No rule allows `write`: it asks, and the chat's prompt becomes the question.
    tmux('send-keys', '-t', 'ask', '-l', '/tool write {"path":"approved.txt","content":"yes"}')
    tmux('send-keys', '-t', 'ask', 'Enter')
    const asked = await until('the permission prompt', (t) => t.includes('write asks permission') && asking(t), 30_000, 'ask')
    expect(asked).toContain('approved.txt')
    expect(await session.workspace.read('approved.txt').catch((error: { code?: string }) => error.code)).toBe('FILE_NOT_FOUND')
    tmux('send-keys', '-t', 'ask', 'o', 'Enter')
    await until('the approved call to run', (t) => prompting(t) && t.includes('Tool results: write returned'), 30_000, 'ask')
    expect((await session.workspace.read('approved.txt')).text).toBe('yes')
    expect(await outcomes()).toEqual([{ type: 'session.next.tool.succeeded', error: undefined }])

    tmux('send-keys', '-t', 'ask', '-l', '/tool write {"path":"rejected.txt","content":"no"}')
    tmux('send-keys', '-t', 'ask', 'Enter')
    await until('the second permission prompt', (t) => (t.match(/write asks permission/g) ?? []).length === 2 && asking(t), 30_000, 'ask')
    tmux('send-keys', '-t', 'ask', '-l', 'r not that file')
    tmux('send-keys', '-t', 'ask', 'Enter')
    const final = await until('the rejected call to end', (t) => prompting(t) && (t.match(/Tool results: write/g) ?? []).length === 2, 30_000, 'ask')
    const [, rejected] = await outcomes()
    expect(rejected).toMatchObject({ type: 'session.next.tool.failed', error: { code: 'PERMISSION_DENIED' } })
    expect(rejected!.error!.message).toContain('not that file')
    const answers = (await session.history({ limit: 500 })).items.filter((e) => e.type === 'session.next.permission.answered').map((e) => e.payload as { reply: string; reason?: string })
    expect(answers).toMatchObject([{ reply: 'once' }, { reply: 'reject', reason: 'not that file' }])
    expect(await session.workspace.read('rejected.txt').catch((error: { code?: string }) => error.code)).toBe('FILE_NOT_FOUND')
    console.log(`approval screen:\n${final}`)
    tmux('send-keys', '-t', 'ask', 'C-d')
    await until('the exit', (t) => t.includes('EXIT=0'), 30_000, 'ask')
  })

  it('schedule adds, lists and deletes a session\'s schedules; a refusal prints its code (exit 1), a usage error exits 2', async () => {
    const token = await devToken('cli')
    const session = await new NeuronClient({ url: dev.url, token }).createSession({ title: 'schedules' })
    const own = join(mkdtempSync(join(tmpdir(), 'neuron-cli-sched-')), 'config.json')
    const mine = (...args: string[]) => runCli(args, { env: { ...env, NEURON_CONFIG: own } })
    expect((await mine('login', '--url', dev.url, '--token', token)).status).toBe(0)
    const added = await mine('schedule', 'add', session.id, '--cron', '0 9 * * 1-5', '--tz', 'Europe/Berlin', '--text', 'the digest', '--id', 'digest', '--json')
    expect(added.stderr).toBe('')
    expect(added.status).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ id: 'digest', definition: { when: { kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' } } })
    const listed = await mine('schedule', session.id)
    expect(listed.status).toBe(0)
    expect(listed.stdout).toMatch(/^digest {2}cron "0 9 \* \* 1-5" Europe\/Berlin {2}next \d{4}-/)
    const short = await mine('schedule', 'add', session.id, '--every', '5', '--text', 'too often')
    expect(short.status).toBe(1)
    expect(short.stderr).toContain('SCHEDULE_INTERVAL_TOO_SHORT')
    expect(short.stderr).not.toContain('    at ')
    const usage = await mine('schedule', 'add', session.id, '--text', 'when?')
    expect(usage.status).toBe(2)
    expect((await mine('schedule', 'delete', session.id, 'digest')).status).toBe(0)
    expect(JSON.parse((await mine('schedule', 'list', session.id, '--json')).stdout)).toEqual([])
  })
})

async function poll(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
