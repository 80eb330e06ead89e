/**
 * The local sandbox for app backends (docs/backends.md#bounds): a workerd process of its own that
 * runs every piece of app backend code `npm start` serves (objects/apps/sandbox/worker.ts), and
 * its supervisor, which stands in for the bounds Cloudflare enforces and local workerd does not.
 *
 * Why a process: workerd runs every isolate of a process on one thread, so a backend's busy loop
 * held the whole local server (no `/health`, no stream), and a full V8 heap aborted it (every
 * stream dropped). Measured with this repository's workerd: `limits: { cpuMs }` is dropped unread,
 * and the inspector cannot interrupt a busy isolate (its messages are run on the isolate's thread).
 *
 * The supervisor pings the sandbox every `pollMs`; no answer for `stallMs` means a backend holds
 * the CPU, and the process is killed (SIGKILL) and started again. So is a process whose resident
 * memory passes `memoryMb` (ArrayBuffers live outside the V8 heap). Each isolate's V8 heap is capped
 * at `heapMb` (`--max-old-space-size`): past it V8 aborts the process, and it is started again. The
 * next generation is told why the last one stopped; a caller whose call broke asks it (client.ts).
 *
 * @example
 * const sandbox = await startSandbox()
 * // wrangler dev --var BACKEND_SANDBOX:${sandbox.url}
 * await sandbox.stop()
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, stop as stopEsbuild } from 'esbuild'
import { SANDBOX_LIMITS } from '../objects/core/limits.ts'

const WORKERD = (createRequire(import.meta.url)('workerd') as { default: string }).default
const ENTRY = new URL('../objects/apps/sandbox/worker.ts', import.meta.url).pathname
/** The marker in the sandbox's command line (test/support/wrangler.ts tells it from wrangler's workerd by it). */
export const SANDBOX_MARKER = 'neuron-sandbox'
/** How long a generation may take to answer its first ping. */
const STARTUP_MS = 20_000

/** A running sandbox. */
export interface Sandbox {
  /** What the serving worker gets as `BACKEND_SANDBOX`. */
  url: string
  /** Stops watching and kills the process. */
  stop(): Promise<void>
}

/** Why a generation stopped (what the next one reports). */
interface Stop {
  limit: 'cpu' | 'memory' | null
  message: string
}

/**
 * Bundles the sandbox's worker, starts it on a free loopback port and watches it.
 *
 * @example
 * const { url, stop } = await startSandbox({ log: (line) => console.error(line) })
 */
export async function startSandbox(options: { log?: (line: string) => void } = {}): Promise<Sandbox> {
  const log = options.log ?? ((line: string) => console.error(line))
  const dir = mkdtempSync(join(tmpdir(), `${SANDBOX_MARKER}-`))
  await build({ entryPoints: [ENTRY], outfile: join(dir, 'sandbox.js'), bundle: true, format: 'esm', platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], external: ['cloudflare:*'], logLevel: 'error' })
  // esbuild keeps a service process for later builds; there are none.
  await stopEsbuild()
  const port = await freePort()
  const secret = randomBytes(16).toString('hex')
  const base = `http://127.0.0.1:${port}/${secret}`
  let child: ChildProcess | undefined
  let generation = -1
  let stopping = false
  let killedFor: Stop | null = null
  let watch: ReturnType<typeof setInterval> | undefined
  // When the sandbox last answered a ping, and whether this generation has answered yet: one
  // starting up (under a loaded machine, seconds) is given STARTUP_MS, not the stall bound.
  let answeredAt = Date.now()
  let up = false

  const start = (stopped: Stop | null) => {
    generation += 1
    killedFor = null
    answeredAt = Date.now()
    up = false
    const config = join(dir, `sandbox-${generation}.capnp`)
    writeFileSync(config, capnp({ port, secret, generation, stopped }))
    const started = spawn(WORKERD, ['serve', '--experimental', config], { stdio: ['ignore', 'pipe', 'pipe'] })
    child = started
    let stderr = ''
    started.stdout!.on('data', (chunk: Buffer) => process.stdout.write(chunk))
    started.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk).slice(-8192)
      process.stderr.write(chunk)
    })
    started.once('exit', (code, signal) => {
      if (stopping) return
      const stop = killedFor ?? (/heap limit|out of memory/i.test(stderr) ? { limit: 'memory' as const, message: `a backend's V8 heap passed ${SANDBOX_LIMITS.heapMb} MiB` } : { limit: null, message: `the sandbox exited (${signal ?? code})` })
      log(`[sandbox] ${stop.message}; starting it again`)
      start(stop)
    })
    return started
  }

  const kill = (stop: Stop) => {
    if (!child || killedFor) return
    killedFor = stop
    child.kill('SIGKILL')
  }

  start(null)
  await until(async () => (await ping(base, 1_000)) === generation, 30_000)
  answeredAt = Date.now()
  let pinging = false
  watch = setInterval(() => {
    if (!child || killedFor) return
    const pid = child.pid!
    const rss = residentMb(pid)
    if (rss > SANDBOX_LIMITS.memoryMb) return kill({ limit: 'memory', message: `the sandbox's resident memory passed ${SANDBOX_LIMITS.memoryMb} MiB (${rss} MiB)` })
    if (Date.now() - answeredAt > (up ? SANDBOX_LIMITS.stallMs : STARTUP_MS)) return kill({ limit: 'cpu', message: `a backend held the CPU: the sandbox did not answer for ${SANDBOX_LIMITS.stallMs} ms` })
    if (pinging) return
    pinging = true
    const asked = generation
    void ping(base, SANDBOX_LIMITS.stallMs).then((answered) => {
      pinging = false
      if (answered !== asked || asked !== generation) return
      answeredAt = Date.now()
      up = true
    })
  }, SANDBOX_LIMITS.pollMs)
  watch.unref?.()

  let stopped: Promise<void> | undefined
  const stop = async () => {
    stopping = true
    clearInterval(watch)
    const last = child
    if (last && last.exitCode === null && last.signalCode === null) {
      await new Promise<void>((resolve) => {
        last.once('exit', () => resolve())
        last.kill('SIGKILL')
      })
    }
    rmSync(dir, { recursive: true, force: true })
  }
  return { url: base, stop: () => (stopped ??= stop()) }
}

/** The workerd config of one generation: one socket on loopback, no network, the Worker Loader. */
function capnp({ port, secret, generation, stopped }: { port: number; secret: string; generation: number; stopped: Stop | null }): string {
  const text = (value: string) => JSON.stringify(value)
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "sandbox", worker = .sandbox), (name = "nowhere", network = (allow = [])) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "sandbox") ],
  v8Flags = [ "--max-old-space-size=${SANDBOX_LIMITS.heapMb}" ],
);
const sandbox :Workerd.Worker = (
  modules = [ (name = "sandbox.js", esModule = embed "sandbox.js") ],
  compatibilityDate = "2026-10-01",
  bindings = [
    (name = "LOADER", workerLoader = ()),
    (name = "SECRET", text = ${text(secret)}),
    (name = "GENERATION", text = ${text(String(generation))}),
    (name = "STOPPED", text = ${text(stopped ? JSON.stringify(stopped) : '')}),
  ],
  globalOutbound = "nowhere",
);
`
}

/** The generation that answered a ping within `timeoutMs`, or null. */
async function ping(base: string, timeoutMs: number): Promise<number | null> {
  try {
    const res = await fetch(`${base}/ping`, { signal: AbortSignal.timeout(timeoutMs) })
    return res.ok ? ((await res.json()) as { generation: number }).generation : null
  } catch {
    return null
  }
}

/** Resident memory of `pid` in MiB (Linux /proc; 0 where it cannot be read). */
function residentMb(pid: number): number {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)
  } catch {
    return 0
  }
}

async function until(done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`the backend sandbox did not start within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A loopback port that was free a moment ago.
 *
 * @example
 * const port = await freePort()
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
