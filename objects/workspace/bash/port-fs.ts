/**
 * just-bash's filesystem interface over a `FilePort`: the shell's `/workspace` is the session's
 * workspace, and every path it names is checked by the workspace's own rules (paths.ts) before the
 * port sees it. The workspace has files only, so:
 * - directories are implied by their files; `mkdir` of an empty one lasts for the command (an empty
 *   directory is not part of the tree, as in git);
 * - symbolic and hard links are refused (`EPERM`): nothing in the tree can point elsewhere;
 * - modes and times are not kept (`chmod`, `touch -d` succeed and change nothing).
 * Errors carry the POSIX code in their message (`ENOENT: …`), which is what the shell's commands
 * print; a refusal of the workspace (a limit, a path) reads `EFBIG`/`ENOSPC`/`EINVAL` with its code.
 */
import type { CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from 'just-bash'
import { NeuronError } from '../../core/errors.ts'
import { normalizePath, WORKSPACE_ROOT } from '../paths.ts'
import type { FilePort } from './executor.ts'

type Encoding = 'utf8' | 'utf-8' | 'ascii' | 'binary' | 'base64' | 'hex' | 'latin1'

function fsError(code: string, message: string, op: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${message}, ${op} '${path}'`), { code })
}

/** Workspace refusals as the errno a shell prints. */
const ERRNO: Record<string, string> = { FILE_TOO_LARGE: 'EFBIG', WORKSPACE_FULL: 'ENOSPC', PATH_INVALID: 'EINVAL', PATH_ESCAPE: 'EACCES', NOT_A_DIRECTORY: 'ENOTDIR', IS_A_DIRECTORY: 'EISDIR', FILE_NOT_FOUND: 'ENOENT' }

function encodingOf(options: unknown): Encoding {
  const value = typeof options === 'string' ? options : (options as { encoding?: string | null } | undefined)?.encoding
  return (value ?? 'utf8') as Encoding
}

function decode(bytes: Uint8Array, encoding: Encoding): string {
  if (encoding === 'binary' || encoding === 'latin1' || encoding === 'ascii') {
    let out = ''
    for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    return out
  }
  if (encoding === 'base64') return btoa(decode(bytes, 'binary'))
  if (encoding === 'hex') return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  return new TextDecoder().decode(bytes)
}

function encode(content: FileContent, encoding: Encoding): Uint8Array {
  if (typeof content !== 'string') return content
  if (encoding === 'binary' || encoding === 'latin1' || encoding === 'ascii') return Uint8Array.from(content, (c) => c.charCodeAt(0) & 0xff)
  if (encoding === 'base64') return encode(atob(content), 'binary')
  if (encoding === 'hex') return Uint8Array.from(content.match(/../g) ?? [], (h) => parseInt(h, 16))
  return new TextEncoder().encode(content)
}

/** POSIX path resolution of `path` against `base`, lexically. */
function resolve(base: string, path: string): string {
  const parts: string[] = []
  for (const segment of `${path.startsWith('/') ? '' : base}/${path}`.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') parts.pop()
    else parts.push(segment)
  }
  return `/${parts.join('/')}`
}

/**
 * @example
 * const fs = new MountableFs({ base: new InMemoryFs(), mounts: [{ mountPoint: '/workspace', filesystem: new PortFs(files) }] })
 */
export class PortFs implements IFileSystem {
  /** Empty directories made during this command. */
  private readonly made = new Set<string>()
  /** Paths seen during this command, for the shell's rare whole-tree walks (`getAllPaths` must be synchronous). */
  private readonly seen = new Set<string>()

  constructor(private readonly port: FilePort) {}

  /** The workspace path of a path inside the mount (`/a/b` → `a/b`), checked by the workspace's rules. */
  private ws(path: string, op: string): string {
    try {
      const ws = normalizePath(`${WORKSPACE_ROOT}${path === '/' ? '' : path}`)
      if (ws !== '') this.seen.add(`/${ws}`)
      return ws
    } catch (error) {
      throw this.refusal(error, op, path)
    }
  }

  private refusal(error: unknown, op: string, path: string): Error {
    if (error instanceof NeuronError) return fsError(ERRNO[error.code] ?? 'EIO', `${error.code}: ${error.message}`, op, path)
    return error as Error
  }

  private async kind(ws: string): Promise<'file' | 'directory' | null> {
    if (ws === '' || this.made.has(ws)) return 'directory'
    return (await this.port.stat(ws))?.kind ?? null
  }

  async readFile(path: string, options?: unknown): Promise<string> {
    return decode(await this.readFileBuffer(path), encodingOf(options))
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    const ws = this.ws(path, 'open')
    const bytes = ws === '' ? null : await this.port.read(ws)
    if (bytes !== null) return bytes
    if ((await this.kind(ws)) === 'directory') throw fsError('EISDIR', 'illegal operation on a directory', 'read', path)
    throw fsError('ENOENT', 'no such file or directory', 'open', path)
  }

  async writeFile(path: string, content: FileContent, options?: unknown): Promise<void> {
    const ws = this.ws(path, 'open')
    if (ws === '' || (await this.kind(ws)) === 'directory') throw fsError('EISDIR', 'illegal operation on a directory', 'open', path)
    const parent = ws.includes('/') ? ws.slice(0, ws.lastIndexOf('/')) : ''
    const above = await this.kind(parent)
    if (above === null) throw fsError('ENOENT', 'no such file or directory', 'open', path)
    if (above === 'file') throw fsError('ENOTDIR', 'not a directory', 'open', path)
    try {
      await this.port.write(ws, encode(content, encodingOf(options)))
    } catch (error) {
      throw this.refusal(error, 'write', path)
    }
  }

  async appendFile(path: string, content: FileContent, options?: unknown): Promise<void> {
    const ws = this.ws(path, 'open')
    const before = ws === '' ? null : await this.port.read(ws)
    const added = encode(content, encodingOf(options))
    if (before === null) return this.writeFile(path, added)
    const joined = new Uint8Array(before.byteLength + added.byteLength)
    joined.set(before)
    joined.set(added, before.byteLength)
    return this.writeFile(path, joined)
  }

  async exists(path: string): Promise<boolean> {
    try {
      return (await this.kind(this.ws(path, 'access'))) !== null
    } catch {
      return false
    }
  }

  async stat(path: string): Promise<FsStat> {
    const ws = this.ws(path, 'stat')
    const stat = ws === '' || this.made.has(ws) ? ({ kind: 'directory' } as const) : await this.port.stat(ws)
    if (stat === null) throw fsError('ENOENT', 'no such file or directory', 'stat', path)
    const file = stat.kind === 'file'
    return { isFile: file, isDirectory: !file, isSymbolicLink: false, mode: file ? 0o644 : 0o755, size: file ? stat.size : 0, mtime: new Date(0) }
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path)
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const ws = this.ws(path, 'mkdir')
    const kind = await this.kind(ws)
    if (kind === 'file' || (kind === 'directory' && !options?.recursive)) throw fsError('EEXIST', 'file already exists', 'mkdir', path)
    if (kind === 'directory') return
    const parts = ws.split('/')
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      const at = await this.kind(dir)
      if (at === 'file') throw fsError('ENOTDIR', 'not a directory', 'mkdir', path)
      if (at === null) {
        if (i < parts.length && !options?.recursive) throw fsError('ENOENT', 'no such file or directory', 'mkdir', path)
        this.made.add(dir)
      }
    }
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.readdirWithFileTypes(path)).map((entry) => entry.name)
  }

  async readdirWithFileTypes(path: string): Promise<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }[]> {
    const ws = this.ws(path, 'scandir')
    const kind = await this.kind(ws)
    if (kind === null) throw fsError('ENOENT', 'no such file or directory', 'scandir', path)
    if (kind === 'file') throw fsError('ENOTDIR', 'not a directory', 'scandir', path)
    const entries = new Map((await this.port.list(ws)).map((entry) => [entry.name, entry.kind]))
    const prefix = ws === '' ? '' : `${ws}/`
    for (const dir of this.made) if (dir.startsWith(prefix) && !dir.slice(prefix.length).includes('/')) entries.set(dir.slice(prefix.length), 'directory')
    return [...entries]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, kind]) => ({ name, isFile: kind === 'file', isDirectory: kind === 'directory', isSymbolicLink: false }))
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const ws = this.ws(path, 'rm')
    const kind = await this.kind(ws)
    if (kind === null) {
      if (options?.force) return
      throw fsError('ENOENT', 'no such file or directory', 'rm', path)
    }
    if (kind === 'file') return this.port.remove(ws)
    if (!options?.recursive) {
      if ((await this.port.list(ws)).length > 0) throw fsError('ENOTEMPTY', 'directory not empty', 'rm', path)
    } else {
      for (const entry of await this.port.list(ws)) await this.rm(`${path === '/' ? '' : path}/${entry.name}`, options)
    }
    for (const dir of [...this.made]) if (dir === ws || dir.startsWith(`${ws}/`)) this.made.delete(dir)
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const from = this.ws(src, 'cp')
    const kind = await this.kind(from)
    if (kind === null) throw fsError('ENOENT', 'no such file or directory', 'cp', src)
    if (kind === 'file') return this.writeFile(dest, await this.readFileBuffer(src))
    if (!options?.recursive) throw fsError('EISDIR', 'illegal operation on a directory', 'cp', src)
    await this.mkdir(dest, { recursive: true })
    for (const entry of await this.port.list(from)) await this.cp(`${src}/${entry.name}`, `${dest}/${entry.name}`, options)
  }

  async mv(src: string, dest: string): Promise<void> {
    await this.cp(src, dest, { recursive: true })
    await this.rm(src, { recursive: true })
  }

  resolvePath(base: string, path: string): string {
    return resolve(base, path)
  }

  getAllPaths(): string[] {
    return [...this.seen]
  }

  async chmod(path: string): Promise<void> {
    await this.stat(path)
  }

  async utimes(path: string): Promise<void> {
    await this.stat(path)
  }

  async symlink(_target: string, linkPath: string): Promise<void> {
    throw fsError('EPERM', 'the workspace holds no links', 'symlink', linkPath)
  }

  async link(_existing: string, newPath: string): Promise<void> {
    throw fsError('EPERM', 'the workspace holds no links', 'link', newPath)
  }

  async readlink(path: string): Promise<string> {
    throw fsError('EINVAL', 'invalid argument', 'readlink', path)
  }

  async realpath(path: string): Promise<string> {
    await this.stat(path)
    return resolve('/', path)
  }
}
