/**
 * apply_patch's parse and plan, by table: both formats, add/delete/move, CRLF, missing final
 * newlines, fuzz, anchors, a 100-hunk patch, a failing hunk (reported exactly, its file untouched),
 * binary refused, hostile paths, malformed patches.
 */
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_PATCH_BYTES } from '../../objects/core/limits.ts'
import { planPatch, type PatchPlan } from '../../objects/workspace/patch/apply.ts'
import { parsePatch } from '../../objects/workspace/patch/parse.ts'
import { codeOf } from '../support/codes.ts'

const enc = new TextEncoder()
const dec = new TextDecoder()

/** The files after applying `patch` to `files` (the plan's writes laid over them), and the plan. */
function apply(files: Record<string, string | Uint8Array>, patch: string, options: { atomic?: boolean } = {}): { after: Record<string, string>; plan: PatchPlan } {
  const plan = planPatch(parsePatch(patch), { read: (path) => (path in files ? (typeof files[path] === 'string' ? enc.encode(files[path] as string) : (files[path] as Uint8Array)) : null) }, options)
  const after: Record<string, string> = {}
  for (const [path, content] of Object.entries(files)) if (typeof content === 'string') after[path] = content
  for (const write of plan.writes) {
    if (write.bytes === null) delete after[write.path]
    else after[write.path] = dec.decode(write.bytes)
  }
  return { after, plan }
}


const begin = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n')

describe('applies', () => {
  const table: [string, Record<string, string>, string, Record<string, string>][] = [
    ['begin-patch: an update', { 'a.py': 'def f():\n    return 1\n' }, begin('*** Update File: a.py', '@@', ' def f():', '-    return 1', '+    return 2'), { 'a.py': 'def f():\n    return 2\n' }],
    ['begin-patch: add and delete', { 'old.txt': 'x\n' }, begin('*** Add File: new/n.txt', '+one', '+two', '*** Delete File: old.txt'), { 'new/n.txt': 'one\ntwo\n' }],
    ['begin-patch: move with an edit', { 'a.txt': 'a\nb\n' }, begin('*** Update File: a.txt', '*** Move to: d/b.txt', '@@', ' a', '-b', '+c'), { 'd/b.txt': 'a\nc\n' }],
    ['begin-patch: anchors narrow the search', { 'c.py': 'class A:\n  def f():\n    x = 1\nclass B:\n  def f():\n    x = 1\n' }, begin('*** Update File: c.py', '@@ class B:', '@@ def f():', '-    x = 1', '+    x = 2'), { 'c.py': 'class A:\n  def f():\n    x = 1\nclass B:\n  def f():\n    x = 2\n' }],
    ['begin-patch: End of File picks the last occurrence', { 'e.txt': 'x\ny\nx\n' }, begin('*** Update File: e.txt', '@@', '-x', '+z', '*** End of File'), { 'e.txt': 'x\ny\nz\n' }],
    ['begin-patch: wrapped in a heredoc', { 'a.txt': 'a\n' }, `cat <<'EOF' | apply_patch\n${begin('*** Update File: a.txt', '@@', '-a', '+b')}\nEOF\n`, { 'a.txt': 'b\n' }],
    ['begin-patch: a bare empty line inside a hunk is context', { 'a.txt': 'a\n\nb\n' }, begin('*** Update File: a.txt', '@@', ' a', '', '-b', '+c'), { 'a.txt': 'a\n\nc\n' }],
    ['unified: an update', { 'a.txt': '1\n2\n3\n' }, '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n', { 'a.txt': '1\ntwo\n3\n' }],
    ['unified: add and delete with /dev/null', { 'gone.txt': 'g\n' }, '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n', { 'n.txt': 'x\ny\n' }],
    ['unified: a git rename without hunks', { 'a.txt': 'a\n' }, 'diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n', { 'b.txt': 'a\n' }],
    ['unified: a git rename with a hunk', { 'a.txt': 'a\nb\n' }, 'diff --git a/a.txt b/c.txt\nrename from a.txt\nrename to c.txt\n--- a/a.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n', { 'c.txt': 'a\nB\n' }],
    ['unified: a removed line starting with dashes', { 'm.md': 'title\n---\nbody\n' }, '--- a/m.md\n+++ b/m.md\n@@ -1,3 +1,2 @@\n title\n----\n body\n', { 'm.md': 'title\nbody\n' }],
    ['unified: plain diff -u paths with timestamps', { 'x.c': 'int a;\n' }, '--- x.c\t2024-01-01 00:00:00\n+++ x.c\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-int a;\n+int b;\n', { 'x.c': 'int b;\n' }],
    ['unified: insertion after line N', { 'a.txt': '1\n2\n' }, '--- a/a.txt\n+++ b/a.txt\n@@ -1,0 +2 @@\n+1.5\n', { 'a.txt': '1\n1.5\n2\n' }],
    ['unified: a stale line number, found by context', { 'a.txt': 'h\nh\nh\nx\ny\n' }, '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n', { 'a.txt': 'h\nh\nh\nx\nz\n' }],
    ['unified: repeated context lands nearest the line named', { 'r.txt': 'k\nv\nk\nv\nk\nv\n' }, '--- a/r.txt\n+++ b/r.txt\n@@ -5,2 +5,2 @@\n k\n-v\n+w\n', { 'r.txt': 'k\nv\nk\nv\nk\nw\n' }],
    ['unified: a CRLF patch text', { 'a.txt': 'a\nb\n' }, '--- a/a.txt\r\n+++ b/a.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n', { 'a.txt': 'a\nc\n' }],
    ['a CRLF file keeps its line ends', { 'w.txt': 'a\r\nb\r\nc\r\n' }, begin('*** Update File: w.txt', '@@', ' a', '-b', '+B'), { 'w.txt': 'a\r\nB\r\nc\r\n' }],
    ['no final newline, kept', { 'n.txt': 'a\nb' }, begin('*** Update File: n.txt', '@@', '-a', '+A'), { 'n.txt': 'A\nb' }],
    ['no final newline, the last line changed', { 'n.txt': 'a\nb' }, '--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n', { 'n.txt': 'a\nc' }],
    ['no final newline, one added', { 'n.txt': 'a\nb' }, '--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n', { 'n.txt': 'a\nb\n' }],
    ['a final newline removed', { 'n.txt': 'a\nb\n' }, '--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n', { 'n.txt': 'a\nb' }],
    ['an added file without a final newline', {}, '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n', { 'n.txt': 'x' }],
    ['fuzz: whitespace at line ends', { 't.txt': 'a  \nb\t\nc\n' }, begin('*** Update File: t.txt', '@@', ' a', '-b', '+B'), { 't.txt': 'a  \nB\nc\n' }],
    ['fuzz: re-indented context', { 'i.py': '        if x:\n            y()\n' }, begin('*** Update File: i.py', '@@', ' if x:', '-    y()', '+            z()'), { 'i.py': '        if x:\n            z()\n' }],
    ['an empty file gains lines', { 'e.txt': '' }, '--- a/e.txt\n+++ b/e.txt\n@@ -0,0 +1 @@\n+first\n', { 'e.txt': 'first\n' }],
    ['an empty file is added', {}, begin('*** Add File: empty.txt'), { 'empty.txt': '' }],
    ['two sections on one file apply in order', { 'a.txt': '1\n2\n3\n' }, begin('*** Update File: a.txt', '@@', '-1', '+one', '*** Update File: a.txt', '@@', '-3', '+three'), { 'a.txt': 'one\n2\nthree\n' }],
  ]
  it.each(table)('%s', (_name, files, patch, expected) => {
    const { after, plan } = apply(files, patch)
    expect(plan.files.map((f) => [f.path, f.status, f.reason])).toEqual(plan.files.map((f) => [f.path, 'applied', undefined]))
    expect(plan.complete).toBe(true)
    expect(after).toEqual(expected)
  })

  it('reports the line and fuzz of every hunk', () => {
    const { plan } = apply({ 't.txt': 'a\nb \nc\n' }, begin('*** Update File: t.txt', '@@', '-a', '+A', '@@', '-b', '+B'))
    expect(plan.files[0]!.hunks).toEqual([
      { hunk: 1, status: 'applied', line: 1, fuzz: 'exact' },
      { hunk: 2, status: 'applied', line: 2, fuzz: 'line-end whitespace' },
    ])
  })

  it('a 100-hunk patch applies every hunk in order', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`)
    const hunks = Array.from({ length: 100 }, (_, k) => `@@ -${k * 10 + 2},3 +${k * 10 + 2},3 @@\n line ${k * 10 + 1}\n-line ${k * 10 + 2}\n+LINE ${k * 10 + 2}\n line ${k * 10 + 3}`)
    const { after, plan } = apply({ 'big.txt': `${lines.join('\n')}\n` }, `--- a/big.txt\n+++ b/big.txt\n${hunks.join('\n')}\n`)
    expect(plan.files[0]!.hunks).toHaveLength(100)
    expect(plan.files[0]!.hunks.every((h, i) => h.status === 'applied' && h.line === i * 10 + 2)).toBe(true)
    const expected = lines.map((line, i) => (i % 10 === 2 ? `LINE ${i}` : line))
    expect(after['big.txt']).toBe(`${expected.join('\n')}\n`)
  })
})

describe('does not apply', () => {
  it('one failing hunk: exactly that hunk is reported, its file is untouched, the other files apply', () => {
    const files = { 'a.txt': '1\n2\n3\n4\n', 'b.txt': 'b\n' }
    const patch = begin('*** Update File: a.txt', '@@', '-1', '+one', '@@', '-nope', '+x', '@@', '-4', '+four', '*** Update File: b.txt', '@@', '-b', '+B')
    const { after, plan } = apply(files, patch)
    expect(plan.complete).toBe(false)
    expect(plan.files[0]).toMatchObject({ path: 'a.txt', status: 'failed', reason: expect.stringMatching(/^hunk 2 of a.txt does not apply: /) })
    expect(plan.files[0]!.hunks.map((h) => h.status)).toEqual(['held', 'failed', 'held'])
    expect(plan.files[0]!.hunks[1]!.reason).toMatch(/not in the file/)
    expect(plan.files[1]).toMatchObject({ path: 'b.txt', status: 'applied' })
    expect(after).toEqual({ 'a.txt': '1\n2\n3\n4\n', 'b.txt': 'B\n' })
    expect(plan.writes.map((w) => w.path)).toEqual(['b.txt'])
  })

  it('atomic: one failing file holds back the whole patch', () => {
    const { plan } = apply({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, begin('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-zzz', '+B'), { atomic: true })
    expect(plan.writes).toEqual([])
    expect(plan.files.map((f) => f.status)).toEqual(['held', 'failed'])
  })

  const failing: [string, Record<string, string | Uint8Array>, string, RegExp][] = [
    ['an update of a missing file', {}, begin('*** Update File: a.txt', '@@', '-a', '+b'), /no file/],
    ['a delete of a missing file', {}, begin('*** Delete File: a.txt'), /no file/],
    ['an add over an existing file', { 'a.txt': 'a\n' }, begin('*** Add File: a.txt', '+x'), /exists/],
    ['a move onto an existing file', { 'a.txt': 'a\n', 'b.txt': 'b\n' }, begin('*** Update File: a.txt', '*** Move to: b.txt', '@@', '-a', '+c'), /destination/],
    ['a binary file', { 'img.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) }, begin('*** Update File: img.png', '@@', '-x', '+y'), /binary/],
    ['invalid UTF-8', { 'l1.txt': new Uint8Array([0x61, 0xff, 0x0a]) }, begin('*** Delete File: l1.txt'), /binary/],
    ['an anchor that is not there', { 'a.txt': 'a\n' }, begin('*** Update File: a.txt', '@@ class Nope', '-a', '+b'), /anchor/],
    ['End of File when the text is earlier', { 'a.txt': 'x\ny\n' }, begin('*** Update File: a.txt', '@@', '-x', '+z', '*** End of File'), /not in the file/],
    ['hunks out of order', { 'a.txt': '1\n2\n' }, begin('*** Update File: a.txt', '@@', '-2', '+two', '@@', '-1', '+one'), /after line 2/],
  ]
  it.each(failing)('%s fails that file with a reason', (_name, files, patch, reason) => {
    const { plan } = apply(files, patch)
    expect(plan.files[0]!.status).toBe('failed')
    expect(plan.files[0]!.reason ?? '').toMatch(reason)
    expect(plan.writes).toEqual([])
  })

  const refused: [string, string, string][] = [
    ['a git binary patch', 'diff --git a/i.png b/i.png\nGIT binary patch\nliteral 5\nabc\n', 'PATCH_BINARY'],
    ['binary files differ', 'diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n', 'PATCH_BINARY'],
    ['a NUL in the patch', begin('*** Add File: a', '+\u0000'), 'PATCH_BINARY'],
    ['no Begin Patch and no diff', 'please change line 3', 'PATCH_INVALID'],
    ['a bad begin-patch line', begin('*** Update File: a.txt', '@@', 'oops'), 'PATCH_INVALID'],
    ['an unknown section', begin('*** Rename File: a'), 'PATCH_INVALID'],
    ['an update without hunks', begin('*** Update File: a.txt'), 'PATCH_INVALID'],
    ['a hunk that changes nothing', begin('*** Update File: a.txt', '@@', ' a'), 'PATCH_INVALID'],
    ['an empty patch', begin(), 'PATCH_INVALID'],
    ['a bad hunk header', '--- a/x\n+++ b/x\n@@ -a +b @@\n', 'PATCH_INVALID'],
    ['a hunk shorter than its counts', '--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n', 'PATCH_INVALID'],
    ['a hunk line with no prefix', '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n*b\n', 'PATCH_INVALID'],
    ['too large', `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+${'x'.repeat(MAX_PATCH_BYTES)}\n`, 'PATCH_TOO_LARGE'],
    ['a path above the root', begin('*** Add File: ../escape.txt', '+x'), 'PATH_ESCAPE'],
    ['an absolute path outside', '--- a/x\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n', 'PATH_ESCAPE'],
    ['a move out of the workspace', begin('*** Update File: a.txt', '*** Move to: /tmp/a.txt', '@@', '-a', '+b'), 'PATH_ESCAPE'],
    ['a control character in a path', begin('*** Add File: a\u001b.txt', '+x'), 'PATH_INVALID'],
  ]
  it.each(refused)('%s is refused whole: %s', (_name, patch, code) => {
    expect(codeOf(() => apply({ 'a.txt': 'a\n', x: 'a\n' }, patch))).toBe(code)
  })

  it('a malformed patch says which line', () => {
    try {
      parsePatch(begin('*** Update File: a.txt', '@@', ' a', 'oops'))
      expect.unreachable()
    } catch (error) {
      expect((error as NeuronError).details).toEqual({ line: 5, reason: expect.stringMatching(/hunk line/) })
    }
  })
})
