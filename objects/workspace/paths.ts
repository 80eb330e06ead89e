/**
 * Workspace paths: every path a tool, a route or the shell names is normalized here before it
 * reaches the tree, and everything that could name something outside the workspace, or two names
 * for one file, is refused.
 *
 * A workspace path is relative to the root (`/workspace` inside the shell), `/`-separated, with no
 * empty, `.` or `..` segment, in Unicode NFC (so `é` typed two ways is one file). Absolute input is
 * accepted only under the root. The tree has files only (directories are implied by their files,
 * and there are no symlinks), so normalizing the text is all resolution needs: no stored name can
 * lead anywhere else.
 *
 * Refused, each with its code and `details.reason`:
 * - `PATH_ESCAPE` (403): `..` above the root, an absolute path outside it (`/etc/passwd`,
 *   `/workspace-other/x`, `/workspace/../etc`).
 * - `PATH_INVALID` (400): not a string, empty where a file is meant, a NUL or other control
 *   character (C0, DEL, C1) or a bidirectional override (names that display as other names), a
 *   backslash (a Windows separator would be a second spelling of `/`), a lone surrogate (no UTF-8
 *   form), or past `WORKSPACE_LIMITS` (path bytes, segment bytes, depth).
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'
import { WORKSPACE_LIMITS } from '../core/limits.ts'

/** Where the workspace appears inside the shell, and the only absolute prefix paths may carry. */
export const WORKSPACE_ROOT = '/workspace'

/** C0 controls, DEL, C1 controls, and the bidirectional embedding/override/isolate characters. */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const encoder = new TextEncoder()

/** How much of a refused path a refusal repeats: enough to recognise, never the whole of a huge one. */
const SHOWN = 200

function refuse(code: 'PATH_ESCAPE' | 'PATH_INVALID', input: unknown, reason: string): never {
  const shown = typeof input === 'string' ? (input.length > SHOWN ? `${input.slice(0, SHOWN)}…` : input) : typeof input
  throw new NeuronError(code, `path ${JSON.stringify(shown)} ${reason}`, { status: code === 'PATH_ESCAPE' ? 403 : 400, details: { path: shown, reason } })
}

/**
 * The workspace path `input` names, resolved against `cwd` (itself a workspace path, default the
 * root) when relative. `''` is the root itself.
 *
 * @example
 * normalizePath('src/./a.ts') // 'src/a.ts'
 * normalizePath('/workspace/src//a.ts') // 'src/a.ts'
 * normalizePath('../b.ts', { cwd: 'src' }) // 'b.ts'
 * normalizePath('../../etc/passwd') // throws PATH_ESCAPE
 */
export function normalizePath(input: unknown, options: { cwd?: string } = {}): string {
  if (typeof input !== 'string') refuse('PATH_INVALID', input, 'is not a string')
  // Length first, so no later check walks a huge string.
  if (input.length > WORKSPACE_LIMITS.pathBytes + WORKSPACE_ROOT.length + 1) refuse('PATH_INVALID', input, `is longer than ${WORKSPACE_LIMITS.pathBytes} bytes`)
  if (FORBIDDEN.test(input)) refuse('PATH_INVALID', input, 'contains a control or bidirectional-override character')
  if (LONE_SURROGATE.test(input)) refuse('PATH_INVALID', input, 'contains a lone surrogate')
  if (input.includes('\\')) refuse('PATH_INVALID', input, 'contains a backslash')
  const text = input.normalize('NFC')
  let rest: string
  if (text.startsWith('/')) {
    if (text !== WORKSPACE_ROOT && !text.startsWith(`${WORKSPACE_ROOT}/`)) refuse('PATH_ESCAPE', input, `is outside ${WORKSPACE_ROOT}`)
    rest = text.slice(WORKSPACE_ROOT.length)
  } else {
    rest = options.cwd ? `${options.cwd}/${text}` : text
  }
  const out: string[] = []
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (out.length === 0) refuse('PATH_ESCAPE', input, `leads above ${WORKSPACE_ROOT}`)
      out.pop()
      continue
    }
    if (encoder.encode(segment).byteLength > WORKSPACE_LIMITS.segmentBytes) refuse('PATH_INVALID', input, `has a name longer than ${WORKSPACE_LIMITS.segmentBytes} bytes`)
    out.push(segment)
  }
  if (out.length > WORKSPACE_LIMITS.depth) refuse('PATH_INVALID', input, `is deeper than ${WORKSPACE_LIMITS.depth} directories`)
  const path = out.join('/')
  if (encoder.encode(path).byteLength > WORKSPACE_LIMITS.pathBytes) refuse('PATH_INVALID', input, `is longer than ${WORKSPACE_LIMITS.pathBytes} bytes`)
  return path
}

/**
 * A path that names a file: normalized, and not the root.
 *
 * @example
 * filePath('/workspace/a.txt') // 'a.txt'
 * filePath('/workspace') // throws PATH_INVALID
 */
export function filePath(input: unknown, options: { cwd?: string } = {}): string {
  const path = normalizePath(input, options)
  if (path === '') refuse('PATH_INVALID', input, 'names the workspace root, not a file')
  return path
}

/**
 * Where a workspace path appears inside the shell.
 *
 * @example
 * shellPath('src/a.ts') // '/workspace/src/a.ts'
 */
export function shellPath(path: string): string {
  return path === '' ? WORKSPACE_ROOT : `${WORKSPACE_ROOT}/${path}`
}

/**
 * The directories above a path, nearest last.
 *
 * @example
 * ancestorsOf('a/b/c.txt') // ['a', 'a/b']
 */
export function ancestorsOf(path: string): string[] {
  const parts = path.split('/')
  const out: string[] = []
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'))
  return out
}
