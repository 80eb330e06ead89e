/**
 * A `FilePort` held in memory: the reference port the executor contract tests run against, with the
 * workspace's own rules (every write decided by tree.ts `decide`, so limits and file/directory
 * conflicts answer exactly as the stored workspace does). A session's port reads and writes its
 * stored workspace instead; nothing in production holds a tree this way.
 */
import { sha256Hex } from '../../ledger/hash.ts'
import { type Change, decide, MemoryTree, type TreeLimits } from '../tree.ts'
import type { FilePort, PortEntry } from './executor.ts'

/**
 * @example
 * const files = new MemoryFiles({ 'src/a.ts': 'export {}' })
 * await files.write('b.txt', new TextEncoder().encode('hi'))
 * files.changes // [{ path: 'b.txt', before: null, after: '8f43…', size: 2, by: 'bash' }]
 */
export class MemoryFiles implements FilePort {
  private readonly tree = new MemoryTree()
  private readonly blobs = new Map<string, Uint8Array>()
  /** Every change made through the port, in order. */
  readonly changes: Change[] = []

  constructor(
    initial: Record<string, string | Uint8Array> = {},
    private readonly limits?: TreeLimits,
  ) {
    for (const [path, content] of Object.entries(initial)) this.put(path, typeof content === 'string' ? new TextEncoder().encode(content) : content, 'setup')
  }

  async read(path: string): Promise<Uint8Array | null> {
    const entry = this.tree.get(path)
    return entry ? this.blobs.get(entry.content)! : null
  }

  async stat(path: string): Promise<{ kind: 'file'; size: number } | { kind: 'directory' } | null> {
    const entry = this.tree.get(path)
    if (entry) return { kind: 'file', size: entry.size }
    return path === '' || this.tree.under(path, 1).length > 0 ? { kind: 'directory' } : null
  }

  async list(dir: string): Promise<PortEntry[]> {
    const prefix = dir === '' ? '' : `${dir}/`
    const out = new Map<string, PortEntry>()
    for (const entry of this.tree.entries(dir)) {
      const [name, ...rest] = entry.path.slice(prefix.length).split('/')
      out.set(name!, { name: name!, kind: rest.length > 0 ? 'directory' : 'file' })
    }
    return [...out.values()]
  }

  async write(path: string, bytes: Uint8Array): Promise<void> {
    this.put(path, bytes, 'bash')
  }

  async remove(path: string): Promise<void> {
    for (const change of decide(this.tree, this.tree.totals(), [{ path, after: null }], 'bash', this.limits).changes) this.apply(change)
  }

  /** The files now, as text, for assertions. */
  snapshot(): Record<string, string> {
    return Object.fromEntries(this.tree.entries().map((entry) => [entry.path, new TextDecoder().decode(this.blobs.get(entry.content)!)]))
  }

  private put(path: string, bytes: Uint8Array, by: string): void {
    const content = sha256Hex(bytes)
    this.blobs.set(content, bytes.slice())
    for (const change of decide(this.tree, this.tree.totals(), [{ path, after: { content, size: bytes.byteLength } }], by, this.limits).changes) this.apply(change)
  }

  private apply(change: Change): void {
    this.tree.apply(change)
    this.changes.push(change)
  }
}
