/**
 * Running app backend code under its bounds, and the one rule from how it ended to its answer.
 * Every piece of backend code the kernel runs goes through here: the upload check (`checkBackend`,
 * loading a module and listing its functions) and every call (`runMethod`).
 *
 * Where it runs (`backendHost`): this deployment's Worker Loader, whose isolates Cloudflare bounds
 * in CPU, subrequests and memory; or, under `npm start`, the local sandbox process (sandbox/),
 * because local workerd enforces none of those and a busy loop or a full heap in any isolate of a
 * workerd process stops the whole process. The wall clock is the kernel's own in both: at the
 * deadline the call is answered 504, and the kernel in the backend's isolate ends the call there.
 *
 * How it ended: a deadline is `BACKEND_TIMEOUT` (504); a bound (CPU, memory, subrequests, or the
 * sandbox stopped under it) is `BACKEND_LIMIT`; anything else the code threw is `BACKEND_FAILED`
 * (a call, 502) or `BACKEND_LOAD_FAILED` (an upload, 422). An upload is refused with 422 whatever
 * stopped it, since the package is what is wrong.
 */
import type { Env } from '../core/env.ts'
import { NeuronError } from '../core/errors.ts'
import { BACKEND_LIMITS } from '../core/limits.ts'
import { type BackendHost, BackendStopped, type CallOutbound, DEADLINE_MESSAGE, loaderHost, OUTPUT_MESSAGE } from './loader.ts'
import { sandboxHost } from './sandbox/client.ts'

/**
 * Where this deployment runs backend code: the sandbox named by `BACKEND_SANDBOX` in development
 * (`npm start` sets it), the Worker Loader everywhere else. A deployment never sends code elsewhere.
 *
 * @example
 * await checkBackend(backendHost(env), hash, module, ['count'])
 */
export function backendHost(env: Env): BackendHost {
  return env.NEURON_ENV === 'development' && env.BACKEND_SANDBOX ? sandboxHost(env.BACKEND_SANDBOX) : loaderHost(env.LOADER)
}

/** One method call as its owner runs it (an installation, or a principal's tool module). */
export interface MethodRun {
  /** The isolate's id (one per installation and package, or per principal and module version). */
  id: string
  module: string
  /** Whose code it is, in messages: the app, or the tool module and its version. */
  label: string
  method: string
  input: unknown
  timeoutMs: number
  /** The largest answer in bytes of JSON, measured in the code's isolate; past it `OUTPUT_TOO_LARGE`. */
  maxOutputBytes?: number
}

/**
 * Runs a method; its answer, or the coded failure: `BACKEND_TIMEOUT` (504), `BACKEND_LIMIT` (502,
 * `details.limit`), `OUTPUT_TOO_LARGE` (502, past `maxOutputBytes`), `BACKEND_FAILED` (502).
 *
 * @example
 * const output = await runMethod(backendHost(env), { id, module, label: 'counter', method: 'count', input: {}, timeoutMs: 30_000 }, new ReadState(ledger), outbound)
 */
export async function runMethod(host: BackendHost, run: MethodRun, state: unknown, outbound: CallOutbound | null): Promise<unknown> {
  const { label: app, method, timeoutMs } = run
  const call = { method, input: run.input, deadlineMs: timeoutMs, ...(run.maxOutputBytes ? { maxOutputBytes: run.maxOutputBytes } : {}) }
  try {
    return await withDeadline(timeoutMs, host.invoke(run.id, run.module, call, state, outbound))
  } catch (error) {
    const ended = endingOf(error)
    if (ended instanceof NeuronError) throw ended
    const reason = (error as Error).message
    if (ended === 'output') throw new NeuronError('OUTPUT_TOO_LARGE', `${app}.${method} answered more than ${run.maxOutputBytes} bytes of JSON`, { status: 502, details: { method, limit: run.maxOutputBytes, reason } })
    if (ended === 'deadline') throw new NeuronError('BACKEND_TIMEOUT', `${app}.${method} did not answer within ${timeoutMs} ms`, { status: 504, details: { method, timeoutMs } })
    if (ended !== 'threw') throw new NeuronError('BACKEND_LIMIT', `${app}.${method} was stopped at its ${ended} bound: ${reason}`, { status: 502, details: { method, limit: ended, reason } })
    throw new NeuronError('BACKEND_FAILED', `${app}.${method} failed: ${reason}`, { status: 502, details: { method, reason } })
  }
}

/**
 * Loads `module` under the same bounds as a call, within `BACKEND_LIMITS.loadMs`, and checks it
 * exports every method in `declared`. Throws 422: `BACKEND_LIMIT` (a bound stopped the load:
 * `details.limit`, `wall` for the deadline), `BACKEND_LOAD_FAILED` (it does not evaluate, or lacks a
 * method: `details.missing`).
 *
 * @example
 * await checkBackend(backendHost(env), hash, pkg.backend.module, Object.keys(pkg.interface.methods))
 */
export async function checkBackend(host: BackendHost, hash: string, module: string, declared: string[]): Promise<void> {
  let found: string[]
  try {
    found = await withDeadline(BACKEND_LIMITS.loadMs, host.methods(`check-${hash}`, module))
  } catch (error) {
    const ended = endingOf(error)
    if (ended instanceof NeuronError) throw ended
    const reason = (error as Error).message
    if (ended !== 'threw') {
      const limit = ended === 'deadline' ? 'wall' : ended
      throw new NeuronError('BACKEND_LIMIT', `the backend module was stopped at its ${limit} bound while loading: ${reason}`, { status: 422, details: { limit, reason } })
    }
    throw new NeuronError('BACKEND_LOAD_FAILED', `the backend module does not load: ${reason}`, { status: 422, details: { reason } })
  }
  const missing = declared.filter((name) => !found.includes(name))
  if (missing.length > 0) {
    throw new NeuronError('BACKEND_LOAD_FAILED', `the backend module does not export the declared method(s) ${missing.join(', ')}`, { status: 422, details: { missing } })
  }
}

/** Rejected with by `withDeadline` when the time is up. */
class DeadlineReached extends Error {}

/**
 * Messages Cloudflare's runtime stops an isolate with, by bound (its production limit enforcer is not
 * open source, and local workerd enforces none: these are the documented messages, unverifiable here).
 */
const RUNTIME_LIMITS: [RegExp, BackendStopped['limit']][] = [
  [/exceeded (its )?CPU|CPU time limit|CPU limit/i, 'cpu'],
  [/exceeded (its )?memory limit|out of memory/i, 'memory'],
  [/too many subrequests|subrequest limit/i, 'subrequests'],
]

/** How backend code ended: our own error (passed on), the deadline, the output bound, a bound, or anything it threw. */
function endingOf(error: unknown): NeuronError | 'deadline' | 'output' | BackendStopped['limit'] | 'threw' {
  if (error instanceof NeuronError) return error
  if (error instanceof DeadlineReached) return 'deadline'
  if (error instanceof BackendStopped) return error.limit
  const message = String((error as Error)?.message)
  if (message.includes(DEADLINE_MESSAGE)) return 'deadline'
  if (message.includes(OUTPUT_MESSAGE)) return 'output'
  return RUNTIME_LIMITS.find(([pattern]) => pattern.test(message))?.[1] ?? 'threw'
}

/** `work`'s answer, or `DeadlineReached` once `ms` have passed. */
async function withDeadline<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineReached(`no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}
