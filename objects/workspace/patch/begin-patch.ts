/**
 * The `*** Begin Patch` format the Codex and opencode agents emit:
 *
 * ```
 * *** Begin Patch
 * *** Add File: path        then its lines, each prefixed "+"
 * *** Delete File: path
 * *** Update File: path
 * *** Move to: new/path     (optional, right after Update File)
 * @@ def handler():          (optional anchors: lines to seek before the hunk; a bare @@ splits hunks)
 *  context
 * -removed
 * +added
 * *** End of File           (optional: the hunk ends the file)
 * *** End Patch
 * ```
 *
 * Leniencies agents rely on, kept: text before `*** Begin Patch` or after `*** End Patch` (a
 * heredoc's `cat <<'EOF'` wrapper), a missing `*** End Patch`, and an empty line inside a hunk read as
 * an empty context line. Everything else that is not the grammar is `PATCH_INVALID` with its line.
 *
 * Pure: no platform imports.
 */
import { emptyHunk, type FilePatch, type Hunk, type HunkLine, invalid, type Patch } from './types.ts'

const BEGIN = '*** Begin Patch'
const END = '*** End Patch'
const ADD = '*** Add File: '
const DELETE = '*** Delete File: '
const UPDATE = '*** Update File: '
const MOVE = '*** Move to: '
const END_OF_FILE = '*** End of File'

/**
 * @example
 * parseBeginPatch('*** Begin Patch\n*** Delete File: a.txt\n*** End Patch').files // [{ kind: 'delete', path: 'a.txt' }]
 */
export function parseBeginPatch(text: string): Patch {
  const lines = text.split('\n')
  let i = lines.findIndex((line) => line.trim() === BEGIN)
  if (i < 0) throw invalid(1, `a patch starts with "${BEGIN}"`)
  i++
  const files: FilePatch[] = []
  const at = () => i + 1
  for (;;) {
    if (i >= lines.length) break
    const line = lines[i]!
    if (line.trim() === END) break
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim()
      const body: string[] = []
      i++
      while (i < lines.length && lines[i]!.startsWith('+')) body.push(lines[i++]!.slice(1))
      files.push({ kind: 'add', path, text: body.length === 0 ? '' : `${body.join('\n')}\n` })
      continue
    }
    if (line.startsWith(DELETE)) {
      files.push({ kind: 'delete', path: line.slice(DELETE.length).trim() })
      i++
      continue
    }
    if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim()
      i++
      let moveTo: string | null = null
      if (lines[i]?.startsWith(MOVE)) moveTo = lines[i++]!.slice(MOVE.length).trim()
      const hunks: Hunk[] = []
      // Bare empty lines: context inside a hunk, but at a hunk's end only the gap before the next header.
      const bare = new Set<HunkLine>()
      let hunk: Hunk | null = null
      while (i < lines.length) {
        const l = lines[i]!
        if (l.startsWith('*** ') && l !== END_OF_FILE) break
        if (l === END_OF_FILE) {
          if (!hunk || hunk.lines.length === 0) throw invalid(at(), `"${END_OF_FILE}" must end a hunk`)
          hunk.atEnd = true
          hunk = null
        } else if (l.startsWith('@@')) {
          const anchor = l.slice(2).trim()
          // Consecutive anchors before any hunk line narrow one hunk's search (class, then method).
          if (!hunk || hunk.lines.length > 0) hunks.push((hunk = emptyHunk()))
          if (anchor !== '') hunk.anchors.push(anchor)
        } else if (l === '' || l[0] === ' ' || l[0] === '-' || l[0] === '+') {
          if (!hunk) hunks.push((hunk = emptyHunk()))
          const hunkLine: HunkLine = l === '' ? { op: ' ', text: '' } : { op: l[0] as ' ' | '-' | '+', text: l.slice(1) }
          if (l === '') bare.add(hunkLine)
          hunk.lines.push(hunkLine)
        } else {
          throw invalid(at(), 'a hunk line must start with " ", "-" or "+" (or be "@@ anchor")')
        }
        i++
      }
      for (const h of hunks) while (h.lines.length > 0 && bare.has(h.lines.at(-1)!)) h.lines.pop()
      const real = hunks.filter((h) => h.lines.length > 0)
      if (real.length === 0 && moveTo === null) throw invalid(at(), `"${UPDATE}${path}" has no hunks`)
      if (real.some((h) => !h.lines.some((x) => x.op !== ' '))) throw invalid(at(), `a hunk of ${path} changes nothing`)
      files.push({ kind: 'update', path, moveTo, hunks: real })
      continue
    }
    if (line.trim() === '') {
      i++
      continue
    }
    throw invalid(at(), `expected "${ADD}", "${DELETE}", "${UPDATE}" or "${END}"`)
  }
  if (files.length === 0) throw invalid(at(), 'the patch changes no file')
  return { format: 'begin-patch', files }
}
