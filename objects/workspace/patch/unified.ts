/**
 * The unified diff format (`diff -u`, `git diff`): per file a `--- old` / `+++ new` pair (or a
 * `diff --git` header that renames, adds or deletes), then hunks `@@ -start,count +start,count @@`
 * whose counts say where each hunk ends, so a removed line that itself starts with `--` is read
 * right. `/dev/null` on one side adds or deletes the file; `a/` and `b/` prefixes are dropped when
 * both sides carry them (git's); `\ No newline at end of file` marks the side above it.
 *
 * Binary patches (`GIT binary patch`, `Binary files … differ`) are refused `PATCH_BINARY`: the
 * workspace's tools change text, and bytes arrive by upload. Anything else that is not the grammar
 * is `PATCH_INVALID` with its line; text between files (a commit message, `index` lines) is skipped.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../../core/errors.ts'
import { emptyHunk, type FilePatch, type Hunk, invalid, type Patch } from './types.ts'

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/
const NULL = '/dev/null'

/** A side's path: the text up to a tab (diff -u puts a timestamp there), without git's prefix. */
function sidePath(raw: string, prefix: string, strip: boolean): string {
  const path = raw.split('\t')[0]!.trim()
  return strip && path.startsWith(prefix) ? path.slice(prefix.length) : path
}

/**
 * @example
 * parseUnified('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n').files[0] // { kind: 'update', path: 'x', … }
 */
export function parseUnified(text: string): Patch {
  const lines = text.split('\n')
  const files: FilePatch[] = []
  let i = 0
  // What a `diff --git` header said about the file that follows.
  let git: { from: string; to: string; renameFrom?: string; renameTo?: string } | null = null
  const flushRename = () => {
    if (git?.renameFrom && git.renameTo) files.push({ kind: 'update', path: git.renameFrom, moveTo: git.renameTo, hunks: [] })
    git = null
  }
  while (i < lines.length) {
    const line = lines[i]!
    if (line.startsWith('diff --git ')) {
      flushRename()
      const m = /^diff --git a\/(.+) b\/(.+)$/.exec(line)
      git = m ? { from: m[1]!, to: m[2]! } : { from: '', to: '' }
      i++
      continue
    }
    if (line.startsWith('GIT binary patch') || /^Binary files .* differ$/.test(line)) {
      throw new NeuronError('PATCH_BINARY', `patch line ${i + 1}: binary patches are not applied; upload the file instead`, { status: 415, details: { line: i + 1 } })
    }
    if (git && line.startsWith('rename from ')) git.renameFrom = line.slice('rename from '.length)
    if (git && line.startsWith('rename to ')) git.renameTo = line.slice('rename to '.length)
    if (!(line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ '))) {
      i++
      continue
    }
    const oldRaw = line.slice(4)
    const newRaw = lines[i + 1]!.slice(4)
    const strip = oldRaw.startsWith('a/') || newRaw.startsWith('b/') || git !== null
    const from = oldRaw.split('\t')[0]!.trim() === NULL ? null : sidePath(oldRaw, 'a/', strip)
    const to = newRaw.split('\t')[0]!.trim() === NULL ? null : sidePath(newRaw, 'b/', strip)
    if (from === null && to === null) throw invalid(i + 1, 'both sides are /dev/null')
    i += 2
    const hunks: Hunk[] = []
    while (i < lines.length && lines[i]!.startsWith('@@')) {
      const m = HUNK.exec(lines[i]!)
      if (!m) throw invalid(i + 1, 'a hunk header reads "@@ -start,count +start,count @@"')
      const hunk = emptyHunk([], Number(m[1]))
      let oldLeft = m[2] === undefined ? 1 : Number(m[2])
      let newLeft = m[4] === undefined ? 1 : Number(m[4])
      // `-0,0` means "before the first line"; `-N,0` means "after line N".
      if (oldLeft === 0) hunk.oldStart = Number(m[1]) + 1
      i++
      let last: ' ' | '-' | '+' | null = null
      while (oldLeft > 0 || newLeft > 0 || lines[i]?.startsWith('\\')) {
        if (i >= lines.length) throw invalid(i, 'the hunk ends before its counts say')
        const l = lines[i]!
        if (l.startsWith('\\')) {
          if (last === '-' || last === ' ') hunk.oldNoNewline = true
          if (last === '+' || last === ' ') hunk.newNoNewline = true
          i++
          continue
        }
        // An empty line in a hunk is an empty context line whose leading space an editor dropped.
        const op = (l === '' ? ' ' : l[0]) as ' ' | '-' | '+'
        if (op !== ' ' && op !== '-' && op !== '+') throw invalid(i + 1, 'a hunk line must start with " ", "-" or "+"')
        if (op !== '+') oldLeft--
        if (op !== '-') newLeft--
        if (oldLeft < 0 || newLeft < 0) throw invalid(i + 1, 'the hunk holds more lines than its header counts')
        hunk.lines.push({ op, text: l.slice(1) })
        last = op
        i++
      }
      hunk.atEnd = hunk.oldNoNewline
      hunks.push(hunk)
    }
    if (from === null) {
      const added = hunks.flatMap((h) => h.lines.filter((l) => l.op === '+').map((l) => l.text))
      const noNewline = hunks.at(-1)?.newNoNewline ?? false
      files.push({ kind: 'add', path: to!, text: added.length === 0 ? '' : added.join('\n') + (noNewline ? '' : '\n') })
    } else if (to === null) {
      files.push({ kind: 'delete', path: from })
    } else {
      if (hunks.length === 0 && from === to) throw invalid(i, `the diff of ${from} has no hunks`)
      files.push({ kind: 'update', path: from, moveTo: from === to ? null : to, hunks })
    }
    git = null
  }
  flushRename()
  if (files.length === 0) throw invalid(1, 'no file diff ("--- a/path" / "+++ b/path") found')
  return { format: 'unified', files }
}
