/**
 * What the work tools (objects/tools/builtins) use of a workspace: the `WorkspaceHost`. A session's
 * own workspace answers it from its SQLite in the same isolate (objects/session/workspace/
 * workspace.ts); an orchestration's package answers it over RPC from the orchestration's shared
 * workspace (objects/session/agent/shared-workspace.ts). Every method may answer now or later, so
 * one tool body serves both, and nothing of the tree is held between calls.
 *
 * `filePort` is the one file port a shell command sees, over any host.
 */
import { NeuronError } from '../core/errors.ts'
import { MAX_PAGE } from '../core/limits.ts'
import type { FilePort, PortEntry } from './bash/executor.ts'
import type { Committed, FileWrite, Listing } from './store.ts'
import type { FileEntry } from './tree.ts'

/** A value now, or a promise of it. */
export type Awaitable<T> = T | Promise<T>

/**
 * @example
 * const host: WorkspaceHost = sessionWorkspace // or sharedWorkspace(address, orchestration, turn, sessionWorkspace)
 * await host.commit([{ path: 'a.txt', bytes }], toolCallId)
 */
export interface WorkspaceHost {
  /** The file at `path` now, or null. */
  entry(path: string): Awaitable<FileEntry | null>
  /** A page of the files under `dir` (`''`: all), in path order, after the path `after`. */
  list(dir: string, options?: { after?: string; limit?: number }): Awaitable<Listing>
  read(path: string): Promise<Uint8Array | null>
  /** The files `paths` name, read now, for a synchronous planner (a patch, a search page). */
  readMany(paths: Iterable<string>): Promise<Map<string, Uint8Array | null>>
  /** Writes an operation's files (bytes, or null to delete) as one decision, made `by` a tool call. */
  commit(writes: FileWrite[], by: string): Awaitable<Committed>
}

/**
 * The file port a shell command sees over `host`: each write a one-file operation made by `by`.
 *
 * @example
 * await executor.run('echo hi > a.txt', { cwd: '', files: filePort(host, toolCallId) })
 */
export function filePort(host: WorkspaceHost, by: string): FilePort {
  return {
    read: (path) => host.read(path),
    async stat(path) {
      const entry = await host.entry(path)
      if (entry) return { kind: 'file', size: entry.size }
      return path === '' || (await host.list(path, { limit: 1 })).entries.length > 0 ? { kind: 'directory' } : null
    },
    async list(dir) {
      const prefix = dir === '' ? '' : `${dir}/`
      const out: PortEntry[] = []
      let after: string | undefined
      // Skips a whole subdirectory per step: the next path after `sub/` + U+10FFFF sorts past it.
      for (;;) {
        const page = await host.list(dir, { limit: 1, ...(after === undefined ? {} : { after }) })
        const entry = page.entries[0]
        if (!entry) return out
        const [name, ...rest] = entry.path.slice(prefix.length).split('/')
        if (out.length === MAX_PAGE * 10) throw new NeuronError('WORKSPACE_LIST_TOO_LONG', `${dir || '/'} holds more than ${out.length} entries`, { status: 413 })
        out.push({ name: name!, kind: rest.length > 0 ? 'directory' : 'file' })
        after = rest.length > 0 ? `${prefix}${name}/\u{10FFFF}` : entry.path
      }
    },
    async write(path, bytes) {
      await host.commit([{ path, bytes }], by)
    },
    async remove(path) {
      await host.commit([{ path, bytes: null }], by)
    },
  }
}

/**
 * Files in path order from `from` on (that path included), one page at a time.
 *
 * @example
 * for await (const entry of filesFrom(host, null)) console.log(entry.path)
 */
export async function* filesFrom(host: WorkspaceHost, from: string | null): AsyncGenerator<FileEntry> {
  if (from !== null) {
    const first = await host.entry(from)
    if (first) yield first
  }
  let after = from ?? undefined
  for (;;) {
    const page = await host.list('', { limit: 100, ...(after === undefined ? {} : { after }) })
    yield* page.entries
    if (page.next === null) return
    after = page.next
  }
}
