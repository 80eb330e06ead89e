/**
 * edit, glob and grep decisions: exact replacement with its uniqueness check, globs by table
 * (including the shapes that stall a backtracking engine), grep bounded and resumable.
 */
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { editText } from '../../objects/workspace/edit.ts'
import { compileGlob } from '../../objects/workspace/glob.ts'
import { globFiles, grep, type SearchSource } from '../../objects/workspace/search.ts'
import { MemoryTree } from '../../objects/workspace/tree.ts'
import { codeOf } from '../support/codes.ts'


describe('edit', () => {
  const table: [string, string, Parameters<typeof editText>[1], string | null, string | null][] = [
    ['a unique string', 'let a = 1\nlet b = 2\n', { oldString: 'a = 1', newString: 'a = 3' }, 'let a = 3\nlet b = 2\n', null],
    ['not there', 'abc', { oldString: 'x', newString: 'y' }, null, 'EDIT_NOT_FOUND'],
    ['twice', 'x = 1\nx = 1\n', { oldString: 'x = 1', newString: 'x = 2' }, null, 'EDIT_NOT_UNIQUE'],
    ['twice, every one meant', 'x = 1\nx = 1\n', { oldString: 'x = 1', newString: 'x = 2', replaceAll: true }, 'x = 2\nx = 2\n', null],
    ['an empty old string', 'abc', { oldString: '', newString: 'y' }, null, 'EDIT_INVALID'],
    ['no change', 'abc', { oldString: 'b', newString: 'b' }, null, 'EDIT_INVALID'],
    ['a multi-line string in a CRLF file', 'a\r\nb\r\nc\r\n', { oldString: 'a\nb', newString: 'A\nB' }, 'A\r\nB\r\nc\r\n', null],
    ['overlapping candidates count once each', 'aaaa', { oldString: 'aa', newString: 'b', replaceAll: true }, 'bb', null],
    ['replacement text with $ patterns is literal', 'x', { oldString: 'x', newString: '$&$1' }, '$&$1', null],
  ]
  it.each(table)('%s', (_name, text, request, expected, code) => {
    expect(codeOf(() => editText(text, request))).toBe(code)
    if (expected !== null) expect(editText(text, request).text).toBe(expected)
  })

  it('a non-unique edit names the count and the lines', () => {
    try {
      editText('x\ny\nx\n', { oldString: 'x', newString: 'z' })
      expect.unreachable()
    } catch (error) {
      expect((error as NeuronError).details).toEqual({ count: 2, lines: [1, 3] })
      expect((error as NeuronError).status).toBe(409)
    }
  })
})

describe('glob', () => {
  const table: [string, string, boolean][] = [
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/deep/a.ts', true],
    ['*.ts', 'a.tsx', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/x/a.ts', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['src/**', 'src/x/y/a.ts', true],
    ['src/**', 'srcx/a', false],
    ['src/', 'src/a/b', true],
    ['/README.md', 'README.md', true],
    ['/README.md', 'docs/README.md', false],
    ['docs/README.md', 'x/docs/README.md', false],
    ['**/test/*.ts', 'test/a.ts', true],
    ['**/test/*.ts', 'a/b/test/a.ts', true],
    ['?.md', 'a.md', true],
    ['?.md', 'ab.md', false],
    ['[ab].txt', 'b.txt', true],
    ['[!ab].txt', 'c.txt', true],
    ['[!ab].txt', 'a.txt', false],
    ['[a-c]x', 'bx', true],
    ['*.{ts,tsx}', 'a.tsx', true],
    ['*.{ts,tsx}', 'a.js', false],
    ['{src,test}/**/*.{ts,js}', 'test/x/y.js', true],
    ['\\*.md', '*.md', true],
    ['\\*.md', 'a.md', false],
    ['a.b', 'axb', false],
    ['(x)+', '(x)+', true],
    ['*', '.env', true],
    ['a/*/b', 'a/x/y/b', false],
    ['[unclosed', '[unclosed', true],
  ]
  it.each(table)('%s against %s', (glob, path, expected) => {
    expect(compileGlob(glob).test(path)).toBe(expected)
  })

  it('refuses what it cannot read', () => {
    expect(codeOf(() => compileGlob(''))).toBe('PATTERN_INVALID')
    expect(codeOf(() => compileGlob('{a,b'))).toBe('PATTERN_INVALID')
    expect(codeOf(() => compileGlob('a\\'))).toBe('PATTERN_INVALID')
    expect(codeOf(() => compileGlob('{'.repeat(9) + '}'.repeat(9)))).toBe('PATTERN_INVALID')
    expect(codeOf(() => compileGlob('*'.repeat(5000)))).toBe('PATTERN_INVALID')
  })

  it('a glob that stalls a backtracking engine answers in linear time', () => {
    // On picomatch's RegExp this glob took 71 s against 40 characters (Node 22); here it is RE2.
    const glob = compileGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b')
    const started = Date.now()
    for (let i = 0; i < 50; i++) expect(glob.test('a'.repeat(200))).toBe(false)
    // A generous bound only an exponential or high-polynomial engine would break.
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe('grep', () => {
  const enc = new TextEncoder()
  function sourceOf(files: Record<string, string | Uint8Array>): SearchSource & { reads: string[] } {
    const tree = new MemoryTree()
    const bytes = new Map<string, Uint8Array>()
    for (const [path, content] of Object.entries(files)) {
      const b = typeof content === 'string' ? enc.encode(content) : content
      bytes.set(path, b)
      tree.apply({ path, before: null, after: path, size: b.byteLength, by: 't' })
    }
    const reads: string[] = []
    return {
      reads,
      files: (from) => tree.entries().filter((e) => from === null || e.path >= from),
      read: (path) => {
        reads.push(path)
        return bytes.get(path) ?? null
      },
    }
  }

  const files = { 'a.ts': 'const x = 1\n// TODO(ada): fix\n', 'b.md': 'todo later\r\nTODO now\r\n', 'img.png': new Uint8Array([137, 80, 0, 1]), 'src/c.ts': 'TODO(bob)\n' }

  it('finds lines by an RE2 pattern, skipping binary files', () => {
    expect(grep(sourceOf(files), { pattern: 'TODO\\(\\w+\\)' })).toEqual({
      hits: [
        { path: 'a.ts', line: 2, text: '// TODO(ada): fix' },
        { path: 'src/c.ts', line: 1, text: 'TODO(bob)' },
      ],
      truncated: false,
      next: null,
      binary: 1,
    })
  })

  it('ignores case, filters by glob, matches literally', () => {
    expect(grep(sourceOf(files), { pattern: 'todo', ignoreCase: true, glob: '*.md' }).hits.map((h) => h.text)).toEqual(['todo later', 'TODO now'])
    expect(grep(sourceOf(files), { pattern: 'TODO(', fixed: true }).hits.map((h) => h.path)).toEqual(['a.ts', 'src/c.ts'])
  })

  it('stops at its limit and resumes exactly where it stopped', () => {
    const many = { 'a.txt': 'x\nx\nx\n', 'b.txt': 'x\n' }
    const first = grep(sourceOf(many), { pattern: 'x', limit: 2 })
    expect(first.hits.map((h) => `${h.path}:${h.line}`)).toEqual(['a.txt:1', 'a.txt:2'])
    expect(first).toMatchObject({ truncated: true, next: { path: 'a.txt', line: 2 } })
    const rest = grep(sourceOf(many), { pattern: 'x', from: first.next! })
    expect(rest.hits.map((h) => `${h.path}:${h.line}`)).toEqual(['a.txt:3', 'b.txt:1'])
  })

  it('stops before reading past its byte budget', () => {
    const source = sourceOf({ a: 'x'.repeat(60), b: 'x'.repeat(60), c: 'x' })
    const result = grep(source, { pattern: 'y' }, { matches: 10, scanBytes: 100, patternBytes: 100, lineChars: 10 })
    expect(result).toMatchObject({ truncated: true, next: { path: 'b', line: 0 } })
    expect(source.reads).toEqual(['a'])
  })

  it('cuts long lines and refuses bad patterns', () => {
    expect(grep(sourceOf({ a: 'y'.repeat(50) }), { pattern: 'y' }, { matches: 10, scanBytes: 100, patternBytes: 100, lineChars: 10 }).hits[0]!.text).toBe(`${'y'.repeat(10)}…`)
    expect(codeOf(() => grep(sourceOf(files), { pattern: '(' }))).toBe('PATTERN_INVALID')
    expect(codeOf(() => grep(sourceOf(files), { pattern: '(a)\\1' }))).toBe('PATTERN_INVALID')
    expect(codeOf(() => grep(sourceOf(files), { pattern: '' }))).toBe('PATTERN_INVALID')
  })

  it('an exponential pattern for a backtracking engine is linear here', () => {
    const started = Date.now()
    expect(grep(sourceOf({ a: `${'a'.repeat(5000)}!` }), { pattern: '^(a+)+$' }).hits).toEqual([])
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('glob lists matching files in path order, bounded', async () => {
    const source = sourceOf(files)
    expect(await globFiles(source, '*.ts')).toEqual({ paths: ['a.ts', 'src/c.ts'], truncated: false, next: null })
    const first = await globFiles(source, '*', { limit: 2 })
    expect(first).toEqual({ paths: ['a.ts', 'b.md'], truncated: true, next: 'b.md' })
    expect((await globFiles(source, '*', { after: first.next! })).paths).toEqual(['img.png', 'src/c.ts'])
  })
})
