/**
 * The embedded executor: `just-bash` (a TypeScript bash over a virtual filesystem, from the
 * registry) running in the calling isolate, with the workspace mounted at `/workspace` through the
 * file port (port-fs.ts) and a scratch in-memory filesystem around it (`/tmp`, `/bin`), discarded
 * after the command. It needs nothing started beside the Worker: it runs under `wrangler dev`, in the
 * workers tests and in production alike (docs/workspace.md#the-shell has the measurements).
 *
 * Bounds, all from `BASH_LIMITS` (narrowed per call): the shell's step count (`commands`, what bounds
 * CPU: a busy loop ends at it), a wall-clock deadline (`wallMs`, an abort), `outputBytes` of stdout
 * plus stderr, call depth, and just-bash's `hardened` profile for the rest (string, archive and
 * scratch sizes). No network: just-bash has no `curl` unless given a network policy, and none is
 * given; the browser build it resolves to in workerd has no `python3`, `sqlite3` or `js-exec` either.
 */
import { Bash, InMemoryFs, MountableFs } from 'just-bash'
import { BASH_LIMITS } from '../../core/limits.ts'
import { normalizePath, shellPath, WORKSPACE_ROOT } from '../paths.ts'
import type { ExecLimits, Executor, RunOptions, RunResult, Stopped } from './executor.ts'
import { PortFs } from './port-fs.ts'

/** How just-bash says a bound stopped a command (its messages, read from stderr). */
const STOPS: [RegExp, Stopped][] = [
  [/too many commands executed|iteration limit exceeded/, 'commands'],
  [/execution deadline|exceeded .*time/i, 'time'],
  [/execution aborted/, 'aborted'],
  [/output size limit exceeded|total output size exceeded/, 'output'],
  [/limit exceeded|maximum recursion depth/, 'limit'],
]

/** The scratch filesystem's bound: what `/tmp` may hold during one command. */
const SCRATCH_BYTES = 16 * 1024 * 1024

/**
 * @example
 * const { stdout } = await embeddedExecutor.run('ls', { files })
 */
export const embeddedExecutor: Executor = {
  name: 'embedded',
  async run(command: string, options: RunOptions): Promise<RunResult> {
    const limits: ExecLimits = { ...BASH_LIMITS, ...options.limits }
    const fs = new MountableFs({ base: new InMemoryFs(), mounts: [{ mountPoint: WORKSPACE_ROOT, filesystem: new PortFs(options.files) }] })
    const bash = new Bash({
      fs,
      // The working directory by the workspace's own rules: a cwd outside it is PATH_ESCAPE, not a shell `cd`.
      cwd: shellPath(normalizePath(options.cwd ?? '')),
      env: { HOME: WORKSPACE_ROOT, ...options.env },
      executionLimitProfile: 'hardened',
      executionLimits: {
        maxCommandCount: limits.commands,
        maxExecutionTimeMs: limits.wallMs,
        maxOutputSize: limits.outputBytes,
        maxCallDepth: limits.callDepth,
        maxFileSystemBytes: SCRATCH_BYTES,
      },
    })
    let result: { stdout: string; stderr: string; exitCode: number }
    try {
      result = await bash.exec(command, { ...(options.signal ? { signal: options.signal } : {}), ...(options.stdin === undefined ? {} : { stdin: options.stdin }) })
    } catch (error) {
      // just-bash lets a redirection's filesystem error other than the common ones (a workspace limit:
      // EFBIG, ENOSPC) escape `exec`; the command ends there, as a failed command, and says why.
      result = { stdout: '', stderr: `bash: ${(error as Error).message}\n`, exitCode: 1 }
    }
    const stopped = result.exitCode >= 124 && result.exitCode <= 126 ? (STOPS.find(([pattern]) => pattern.test(result.stderr))?.[1] ?? null) : null
    return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, stopped: options.signal?.aborted && stopped !== null ? 'aborted' : stopped }
  },
}
