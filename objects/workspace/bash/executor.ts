/**
 * What runs a `bash` command over a workspace: the `Executor` interface every executor implements
 * (the embedded shell here, embedded.ts; a container executor such as Cloudflare Sandbox behind the
 * same interface), and the `FilePort` through which an executor sees the workspace. The port is all
 * an executor may touch of the session: files by workspace path, read and written through it, so
 * the session decides every write (paths, limits, which tool call made it) and an executor holds
 * nothing of the tree. `test/workspace/executor-contract.ts` is what any executor must pass.
 *
 * Pure: no platform imports.
 */

/** A directory entry as the port lists it. */
export interface PortEntry {
  name: string
  kind: 'file' | 'directory'
}

/**
 * The workspace as an executor sees it. Paths are normalized workspace paths (objects/workspace/
 * paths.ts: relative, `''` the root). Directories are implied by the files below them.
 */
export interface FilePort {
  read(path: string): Promise<Uint8Array | null>
  stat(path: string): Promise<{ kind: 'file'; size: number } | { kind: 'directory' } | null>
  /** The entries directly in `dir`, in name order. */
  list(dir: string): Promise<PortEntry[]>
  write(path: string, bytes: Uint8Array): Promise<void>
  remove(path: string): Promise<void>
}

/** What one command may use (`BASH_LIMITS` unless the caller narrows them). */
export interface ExecLimits {
  /** Shell steps: simple commands, loop iterations, function calls (what bounds CPU). */
  commands: number
  /** The deadline, in ms. */
  wallMs: number
  /** stdout plus stderr, in bytes. */
  outputBytes: number
  /** Function call depth. */
  callDepth: number
}

export interface RunOptions {
  /** The working directory, a workspace path (`''`: the root). */
  cwd?: string
  env?: Record<string, string>
  stdin?: string
  files: FilePort
  signal?: AbortSignal
  limits?: Partial<ExecLimits>
}

/** Why a command was stopped before it ended by itself. */
export type Stopped = 'commands' | 'time' | 'output' | 'aborted' | 'limit'

export interface RunResult {
  stdout: string
  stderr: string
  exitCode: number
  /** Set when a bound or the signal ended the command. */
  stopped: Stopped | null
}

/**
 * @example
 * const result = await executor.run('echo hi > a.txt; cat a.txt | wc -c', { cwd: '', files })
 * result.stdout // '3\n'
 */
export interface Executor {
  /** `embedded`, `sandbox`, …: which executor answered (shown in the tool's output). */
  readonly name: string
  run(command: string, options: RunOptions): Promise<RunResult>
}
