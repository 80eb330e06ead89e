/**
 * Starts a real `wrangler dev` process for end-to-end, crash and browser tests,
 * the way `npm start` does (scripts/dev.ts: wrangler dev, with app backends in
 * the local sandbox process). The process runs in its own process group so a
 * crash test can `kill -9` the whole tree (wrangler, its workerd child and the
 * sandbox) at once.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, SANDBOX_MARKER } from '../../scripts/sandbox.ts'
import { DEV_PROCESS_ENV } from '../../scripts/dev-env.mjs'

export interface Wrangler {
  url: string
  port: number
  persistTo: string
  /** SIGKILL the whole process group: no shutdown hooks, no flush. */
  crash(): Promise<void>
  /** Graceful stop. */
  stop(): Promise<void>
  output(): string
  /** The wrangler inspector proxy's port (see inspector.ts). */
  inspectorPort: number
  /** Resident memory of each workerd process in the group (not the backend sandbox), in MiB. */
  workerdRssMb(): number[]
  /** CPU time (user + system) each workerd process in the group has used so far, in seconds. */
  workerdCpuSeconds(): number[]
}

const ROOT = resolve(import.meta.dirname, '../..')

/** The dev identity every test `wrangler dev` runs with (passed as --var, never a real secret). */
const DEV_VARS = {
  NEURON_ENV: 'development',
  DEV_AUTH_SECRET: 'process-test-dev-secret-0123456789',
  TICKET_SECRET: 'process-test-ticket-secret-012345',
  CREDENTIALS_SECRET: 'process-test-credentials-secret-0123',
  VETKEYS_SECRET: 'process-test-vetkeys-secret-01234567',
}

/** A dev bearer token the test `wrangler dev` accepts (loopback host, dev secret), valid for `ttl` seconds (default 12 h). */
export async function devToken(sub = 'tester', claims: string[] = [], ttl?: number): Promise<string> {
  // The same signer as `npm run token`.
  const { signDevToken } = await import('../../scripts/dev-token.mjs')
  return signDevToken({ secret: DEV_VARS.DEV_AUTH_SECRET, sub, claims, ...(ttl === undefined ? {} : { ttl }) })
}

/** A fresh temporary persistence directory. */
export function tempPersistDir(): string {
  return mkdtempSync(join(tmpdir(), 'neuron-state-'))
}

/** Starts `wrangler dev` on a free port and resolves once it serves `/health`. */
export async function startWrangler(
  options: {
    persistTo?: string
    vars?: Record<string, string>
    /** Interface to listen on (default 127.0.0.1). */
    ip?: string
    /** A worker entry in place of wrangler.toml's `main` (same bindings), e.g. the load harness's. */
    script?: string
    /** A wrangler config in place of wrangler.toml, e.g. the delivery bench's (bench/delivery/config.ts). */
    config?: string
  } = {},
): Promise<Wrangler> {
  const persistTo = options.persistTo ?? tempPersistDir()
  // A port found free can be taken before wrangler binds it (by another test's wrangler, or by
  // the ports wrangler picks for itself): that start fails with EADDRINUSE, and another pair of
  // ports is tried. Any other failure is the test's to see.
  for (let attempt = 1; ; attempt++) {
    try {
      const [port, inspectorPort] = await freePorts(2)
      return await startOn(port!, inspectorPort!, persistTo, options)
    } catch (error) {
      if (attempt === 3 || !/Address already in use/.test(String(error))) throw error
    }
  }
}

/** One `wrangler dev` start on the given HTTP and inspector ports. */
async function startOn(port: number, inspectorPort: number, persistTo: string, options: Parameters<typeof startWrangler>[0] = {}): Promise<Wrangler> {
  const args = [
    join(ROOT, 'scripts/dev.ts'),
    ...(options.script ? [options.script] : []),
    ...(options.config ? ['--config', options.config] : []),
    '--ip',
    options.ip ?? '127.0.0.1',
    '--port',
    String(port),
    '--persist-to',
    persistTo,
    '--show-interactive-dev-session=false',
    '--inspector-port',
    String(inspectorPort),
  ]
  for (const [key, value] of Object.entries({ ...DEV_VARS, ...options.vars })) args.push('--var', `${key}:${value}`)
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    // The environment `npm start` gives wrangler dev (scripts/dev-env.mjs).
    // The shell's build serves its test fixtures' pages only when asked (shell-web/build.ts): every
    // test server asks, so builds of one test run never disagree about them.
    env: { ...DEV_PROCESS_ENV, ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1', NEURON_SHELL_FIXTURES: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  child.stdout!.on('data', (chunk) => (log += chunk))
  child.stderr!.on('data', (chunk) => (log += chunk))
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForHealth(url, child, () => log)
  } catch (error) {
    // wrangler may have exited while workerd, in its process group, still runs.
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {}
    throw error
  }
  return {
    url,
    port,
    persistTo,
    crash: () => killGroup(child, 'SIGKILL'),
    stop: () => killGroup(child, 'SIGTERM'),
    output: () => log,
    inspectorPort,
    workerdRssMb: () => workerdsOf(child.pid!).map(({ status }) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)),
    // /proc/<pid>/stat fields 14 and 15 (utime, stime), in clock ticks of 1/100 s.
    workerdCpuSeconds: () => workerdsOf(child.pid!).map(({ stat }) => (Number(stat[11]) + Number(stat[12])) / 100),
  }
}

/** Every workerd process of wrangler's whose process group is `group` (not the backend sandbox): its stat fields after the command name, and its status text. */
function workerdsOf(group: number): { stat: string[]; status: string }[] {
  const found: { stat: string[]; status: string }[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (!command.includes('workerd') || command.includes(SANDBOX_MARKER)) continue
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      if (Number(stat[2]) !== group) continue
      found.push({ stat, status: readFileSync(`/proc/${pid}/status`, 'utf8') })
    } catch {
      // the process ended while we looked
    }
  }
  return found
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}:\n${log()}`)
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) })
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  await killGroup(child, 'SIGKILL')
  throw new Error(`wrangler dev did not become healthy within 90s:\n${log()}`)
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
    }, 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      // The group may hold workerd after wrangler itself exits.
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
      resolve()
    })
    try {
      process.kill(-child.pid!, signal)
    } catch {
      resolve()
    }
  })
}

/** `count` distinct ports that were free a moment ago. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < count) ports.add(await freePort())
  return [...ports]
}
