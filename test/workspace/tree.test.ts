/**
 * The pure tree: what an operation decides (each code at its boundary), the fold, and the merge diff.
 */
import { describe, expect, it } from 'vitest'
import { decide, diffTrees, type Edit, MemoryTree, renameEdits } from '../../objects/workspace/tree.ts'
import { codeOf } from '../support/codes.ts'

const blob = (content: string, size = content.length) => ({ content, size })
const limits = { fileBytes: 10, files: 3, treeBytes: 20 }

function treeOf(files: Record<string, string>): MemoryTree {
  const tree = new MemoryTree()
  for (const [path, content] of Object.entries(files)) tree.apply({ path, before: null, after: content, size: content.length, by: 'setup' })
  return tree
}


describe('decide', () => {
  const tree = treeOf({ 'a.txt': 'aaaa', 'dir/f': 'ff' })
  const totals = tree.totals()
  const table: [string, Edit[], string | null][] = [
    ['a file at the size limit', [{ path: 'n', after: blob('x', 10) }], null],
    ['a file one byte past it', [{ path: 'n', after: blob('x', 11) }], 'FILE_TOO_LARGE'],
    ['the last file the tree may hold', [{ path: 'n', after: blob('x') }], null],
    ['one file past the count', [{ path: 'n', after: blob('x') }, { path: 'm', after: blob('y') }], 'WORKSPACE_FULL'],
    ['bytes exactly at the tree limit', [{ path: 'a.txt', after: blob('b', 10) }, { path: 'n', after: blob('c', 8) }], null],
    ['one byte past the tree limit', [{ path: 'a.txt', after: blob('b', 10) }, { path: 'n', after: blob('c', 9) }], 'WORKSPACE_FULL'],
    ['a file under a file', [{ path: 'a.txt/x', after: blob('x') }], 'NOT_A_DIRECTORY'],
    ['a file over a directory', [{ path: 'dir', after: blob('x') }], 'IS_A_DIRECTORY'],
    ['a directory emptied, then a file in its place', [{ path: 'dir/f', after: null }, { path: 'dir', after: blob('x') }], null],
    ['a file deleted, then a directory in its place', [{ path: 'a.txt', after: null }, { path: 'a.txt/x', after: blob('x') }], null],
    ['a file staged in a new directory, then a file in its place', [{ path: 'new/x', after: blob('x') }, { path: 'new', after: blob('y') }], 'IS_A_DIRECTORY'],
    ['a file staged and deleted in a new directory, then a file in its place', [{ path: 'new/x', after: blob('x') }, { path: 'new/x', after: null }, { path: 'new', after: blob('y') }], null],
    ['a stored file replaced twice, then a file over its directory', [{ path: 'dir/f', after: blob('y') }, { path: 'dir/f', after: blob('z') }, { path: 'dir', after: blob('x') }], 'IS_A_DIRECTORY'],
    ['a stored file replaced, then deleted, then a file over its directory', [{ path: 'dir/f', after: blob('y') }, { path: 'dir/f', after: null }, { path: 'dir', after: blob('x') }], null],
    ['deleting what is absent', [{ path: 'nope', after: null }], 'FILE_NOT_FOUND'],
    ['deleting twice in one operation', [{ path: 'a.txt', after: null }, { path: 'a.txt', after: null }], 'FILE_NOT_FOUND'],
  ]
  it.each(table)('%s', (_name, edits, code) => {
    expect(codeOf(() => decide(tree, totals, edits, 'c', limits))).toBe(code)
  })

  it('an operation of 20,000 new files asks the tree a bounded number of questions per file', () => {
    const counted = new MemoryTree()
    let asked = 0
    const reader = { get: (path: string) => (asked++, counted.get(path)), under: (dir: string, limit: number) => (asked++, counted.under(dir, limit)) }
    const edits = Array.from({ length: 20_000 }, (_, i) => ({ path: `src/d${Math.floor(i / 100)}/f${i % 100}.txt`, after: blob(`c${i}`) }))
    const { changes } = decide(reader, { files: 0, bytes: 0 }, edits, 'c', { fileBytes: 10, files: 20_000, treeBytes: 1e6 })
    expect(changes).toHaveLength(20_000)
    // Each file: its own entry and whether files are under it (its directories are asked once each).
    expect(asked).toBeLessThanOrEqual(2 * 20_000 + 201)
  })

  it('one change per path, from the tree before the operation to the last edit', () => {
    const decision = decide(tree, totals, [{ path: 'n', after: blob('1') }, { path: 'n', after: blob('2') }, { path: 'a.txt', after: blob('aaaa') }], 'call_1', limits)
    expect(decision.changes).toEqual([{ path: 'n', before: null, after: '2', size: 1, by: 'call_1' }])
    expect(decision.totals).toEqual({ files: 3, bytes: 7 })
  })

  it('a shrinking operation is allowed over the limits', () => {
    const full = treeOf({ a: 'x'.repeat(15), b: 'y'.repeat(15) })
    expect(decide(full, full.totals(), [{ path: 'a', after: null }], 'c', limits).totals).toEqual({ files: 1, bytes: 15 })
  })

  it('a rename shares the blob', () => {
    const edits = renameEdits(tree, 'a.txt', 'b.txt')
    expect(decide(tree, totals, edits, 'c').changes).toEqual([
      { path: 'a.txt', before: 'aaaa', after: null, size: 0, by: 'c' },
      { path: 'b.txt', before: null, after: 'aaaa', size: 4, by: 'c' },
    ])
    expect(codeOf(() => renameEdits(tree, 'zz', 'b'))).toBe('FILE_NOT_FOUND')
  })
})

describe('fold and diff', () => {
  it('the fold of changes is the tree; a diff of two folds names what differs, in path order', () => {
    const older = treeOf({ a: '1', b: '2', 'c/d': '3' })
    const newer = treeOf({ a: '1', b: '9', 'c/e': '4' })
    expect([...diffTrees(older.entries(), newer.entries())]).toEqual([
      { path: 'b', before: '2', after: '9' },
      { path: 'c/d', before: '3', after: null },
      { path: 'c/e', before: null, after: '4' },
    ])
    expect([...diffTrees(newer.entries(), newer.entries())]).toEqual([])
    expect(older.under('c', 10)).toEqual(['c/d'])
    expect(older.under('', 2)).toEqual(['a', 'b'])
  })
})
