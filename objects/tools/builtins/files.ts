/**
 * File tools over the session's workspace (docs/workspace.md): `read` (bounded, paged by lines,
 * binary described not dumped), `write`, `edit` (an exact string, once), `glob` and `grep`
 * (bounded, RE2). Paths are workspace paths (`PATH_ESCAPE` / `PATH_INVALID` for anything else).
 * Every call asserts the permission policy itself before it acts, naming the paths it touches
 * (the registry injects nothing); each change the call makes is recorded `by` its tool call id.
 *
 * The tools reach the workspace only through a `WorkspaceHost` (objects/workspace/host.ts): the
 * session's own workspace, or, for a package of an orchestration whose workspace is shared, the
 * orchestration's over RPC. Nothing of the tree is held between calls.
 */
import { z } from 'zod'
import { WORKSPACE_SEARCH_LIMITS } from '../../core/limits.ts'
import { NeuronError } from '../../core/errors.ts'
import { editText } from '../../workspace/edit.ts'
import { compileGlob } from '../../workspace/glob.ts'
import { filePath, normalizePath } from '../../workspace/paths.ts'
import { globFiles, grep, type GrepHit, type SearchCursor } from '../../workspace/search.ts'
import { filesFrom, type WorkspaceHost } from '../../workspace/host.ts'
import { jsonBytes, linePage, textOf } from '../../workspace/text.ts'
import type { FileEntry } from '../../workspace/tree.ts'
import { MODEL_OUTPUT_CAP } from '../settle.ts'
import { Tool, type ToolContext } from '../tool.ts'

/** What the work tools use of a workspace (objects/workspace/host.ts): the session's own, or its orchestration's. */
export type WorkspaceAccess = WorkspaceHost

/**
 * `read`'s bounds: lines per call, and the bytes of the page's text as the model is shown it (JSON),
 * so a whole page fits under the settlement's cap with the other fields beside it (a page stops at
 * whichever comes first); a longer line is cut at `lineChars`, which even of the widest characters
 * fits.
 */
export const READ_LIMITS = { lines: 2_000, bytes: MODEL_OUTPUT_CAP - 1024, lineChars: 2_000 } as const

const encoder = new TextEncoder()

/** The one request a file tool makes: its name, the paths it touches, what a person is shown. */
export function assertFiles(context: ToolContext, tool: string, paths: string[], input: unknown): Promise<void> {
  return context.permission.assert({ tool, source: 'builtin', subjects: paths, input })
}

const Path = z.string().min(1).max(2048)

/**
 * @example
 * const tools = fileTools(workspace)
 * registry.register('read', tools.read)
 */
export function fileTools(workspace: WorkspaceAccess) {
  const read = Tool.make({
    description: `Read a text file of the workspace (paths relative to /workspace), ${READ_LIMITS.lines} lines at most per call: give offset (1-based line) to page on. Binary files are described, not shown.`,
    input: z.object({ path: Path, offset: z.number().int().min(1).optional(), limit: z.number().int().min(1).max(READ_LIMITS.lines).optional() }),
    output: z.object({
      path: z.string(),
      size: z.number(),
      binary: z.boolean(),
      text: z.string(),
      from: z.number(),
      to: z.number(),
      lines: z.number(),
      next: z.number().nullable(),
    }),
    execute: async (input, context) => {
      const path = filePath(input.path)
      await assertFiles(context, 'read', [path], input)
      const bytes = await workspace.read(path)
      if (bytes === null) throw new NeuronError('FILE_NOT_FOUND', `no file at ${path}`, { status: 404, details: { path } })
      const text = textOf(bytes)
      if (text === null) {
        return { path, size: bytes.byteLength, binary: true, text: `binary file, ${bytes.byteLength} bytes (not UTF-8 text, or holds a NUL byte)`, from: 0, to: 0, lines: 0, next: null }
      }
      const from = input.offset ?? 1
      // The path is shown beside the text: its JSON comes out of the page's budget.
      const page = linePage(text, from, input.limit ?? READ_LIMITS.lines, { bytes: READ_LIMITS.bytes - jsonBytes(path), lineChars: READ_LIMITS.lineChars })
      return { path, size: bytes.byteLength, binary: false, text: page.lines.join('\n'), from, to: from + page.lines.length - 1, lines: page.total, next: page.next }
    },
  })

  const write = Tool.make({
    description: 'Write a file of the workspace (created, or replaced whole), with its parent directories.',
    input: z.object({ path: Path, content: z.string() }),
    output: z.object({ path: z.string(), size: z.number(), created: z.boolean(), changed: z.boolean() }),
    execute: async (input, context) => {
      const path = filePath(input.path)
      await assertFiles(context, 'write', [path], { path, bytes: encoder.encode(input.content).byteLength })
      const created = (await workspace.entry(path)) === null
      const bytes = encoder.encode(input.content)
      const { changes } = await workspace.commit([{ path, bytes }], context.toolCallId)
      return { path, size: bytes.byteLength, created, changed: changes.length > 0 }
    },
  })

  const edit = Tool.make({
    description: 'Replace an exact string in a workspace file. oldString must occur exactly once (add surrounding lines to make it unique), unless replaceAll is set.',
    input: z.object({ path: Path, oldString: z.string().min(1), newString: z.string(), replaceAll: z.boolean().optional() }),
    output: z.object({ path: z.string(), replaced: z.number(), line: z.number() }),
    execute: async (input, context) => {
      const path = filePath(input.path)
      await assertFiles(context, 'edit', [path], input)
      const bytes = await workspace.read(path)
      if (bytes === null) throw new NeuronError('FILE_NOT_FOUND', `no file at ${path}`, { status: 404, details: { path } })
      const text = textOf(bytes)
      if (text === null) throw new NeuronError('FILE_BINARY', `${path} is binary; edit changes text`, { status: 415, details: { path } })
      const result = editText(text, input)
      await workspace.commit([{ path, bytes: encoder.encode(result.text) }], context.toolCallId)
      return { path, replaced: result.replaced, line: result.line }
    },
  })

  const glob = Tool.make({
    description: 'List workspace files whose path matches a glob (`*`, `**`, `?`, `[a-z]`, `{a,b}`; a glob without `/` matches a name at any depth), in path order.',
    input: z.object({ pattern: z.string().min(1).max(4096), after: z.string().optional(), limit: z.number().int().min(1).max(WORKSPACE_SEARCH_LIMITS.matches).optional() }),
    output: z.object({ paths: z.array(z.string()), truncated: z.boolean(), next: z.string().nullable() }),
    execute: async (input, context) => {
      await assertFiles(context, 'glob', [], input)
      return globFiles({ files: (from) => filesFrom(workspace, from) }, input.pattern, { ...(input.after === undefined ? {} : { after: normalizePath(input.after) }), ...(input.limit === undefined ? {} : { limit: input.limit }) })
    },
  })

  const grepTool = Tool.make({
    description: 'Search workspace text files for an RE2 regular expression (or a fixed string), line by line, in path order; bounded, with `next` to continue.',
    input: z.object({
      pattern: z.string().min(1).max(WORKSPACE_SEARCH_LIMITS.patternBytes),
      fixed: z.boolean().optional(),
      ignoreCase: z.boolean().optional(),
      glob: z.string().min(1).max(4096).optional(),
      from: z.object({ path: z.string(), line: z.number().int().min(0) }).optional(),
      limit: z.number().int().min(1).max(WORKSPACE_SEARCH_LIMITS.matches).optional(),
    }),
    output: z.object({
      hits: z.array(z.object({ path: z.string(), line: z.number(), text: z.string() })),
      truncated: z.boolean(),
      next: z.object({ path: z.string(), line: z.number() }).nullable(),
      binary: z.number(),
    }),
    execute: async (input, context) => {
      await assertFiles(context, 'grep', [], input)
      return searchPaged(workspace, input)
    },
  })

  return { read, write, edit, glob, grep: grepTool }
}

/**
 * `grep` over the stored tree, one page of files at a time: the page's bytes are read (through the
 * lineage, which may await) and searched, and the search's bounds carry across pages, so the
 * answer is what one search over the whole tree would say.
 */
async function searchPaged(
  workspace: WorkspaceAccess,
  query: { pattern: string; fixed?: boolean; ignoreCase?: boolean; glob?: string; from?: SearchCursor; limit?: number },
): Promise<{ hits: GrepHit[]; truncated: boolean; next: SearchCursor | null; binary: number }> {
  const matcher = query.glob === undefined ? null : compileGlob(query.glob)
  const hits: GrepHit[] = []
  let binary = 0
  let scanned = 0
  const max = Math.min(query.limit ?? WORKSPACE_SEARCH_LIMITS.matches, WORKSPACE_SEARCH_LIMITS.matches)
  let from: SearchCursor | null = query.from ? { path: normalizePath(query.from.path), line: query.from.line } : null
  const files = filesFrom(workspace, from?.path ?? null)
  for (;;) {
    const page: FileEntry[] = []
    let pageBytes = 0
    while (page.length < 50 && pageBytes < 4 * 1024 * 1024) {
      const next = await files.next()
      if (next.done) break
      if (matcher && !matcher.test(next.value.path)) continue
      page.push(next.value)
      pageBytes += next.value.size
    }
    if (page.length === 0) return { hits, truncated: false, next: null, binary }
    const bytes = await workspace.readMany(page.map((entry) => entry.path))
    const result = grep(
      { files: () => page, read: (path) => bytes.get(path) ?? null },
      { pattern: query.pattern, ...(query.fixed ? { fixed: true } : {}), ...(query.ignoreCase ? { ignoreCase: true } : {}), ...(from ? { from } : {}), limit: max - hits.length },
      { ...WORKSPACE_SEARCH_LIMITS, scanBytes: WORKSPACE_SEARCH_LIMITS.scanBytes - scanned, matches: max - hits.length },
    )
    hits.push(...result.hits)
    binary += result.binary
    if (result.truncated) return { hits, truncated: true, next: result.next, binary }
    if (hits.length === max) return { hits, truncated: true, next: { path: page.at(-1)!.path, line: Number.MAX_SAFE_INTEGER }, binary }
    for (const entry of page) scanned += entry.size
    from = null
  }
}
