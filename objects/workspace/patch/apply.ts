/**
 * Applying a parsed patch to the workspace: every hunk is preflighted against the files as they
 * are (and as the patch's earlier files leave them), then each file's new content is decided whole.
 * A file is the unit: it changes with all of its hunks or not at all, so no file is ever
 * half-patched; the report says, file by file and hunk by hunk, what applied, where, how loosely,
 * and why not. The plan only reads; the caller commits its `writes` as one workspace operation
 * (tree.ts `decide`), so the limits are checked over the whole patch and a crash leaves every file
 * before or after.
 *
 * With `atomic`, one failing file holds back the whole patch (every file `held`, nothing written).
 *
 * Text only: a file that is not UTF-8, or holds a NUL byte, is not patched (`binary`).
 *
 * Pure: no platform imports.
 */
import { filePath } from '../paths.ts'
import { textOf } from '../text.ts'
import { joinLines, splitLines, type TextLines } from './lines.ts'
import { type Fuzz, seek } from './seek.ts'
import type { FilePatch, Hunk, Patch } from './types.ts'

/** What the plan reads: a file's bytes now, or null. */
export interface PatchSource {
  read(path: string): Uint8Array | null
}

export interface HunkReport {
  /** 1-based, within its file. */
  hunk: number
  /** `held`: it matched, but its file was not changed because another hunk (or file) failed. */
  status: 'applied' | 'failed' | 'held'
  /** The 1-based line of the file it matched at. */
  line?: number
  fuzz?: Fuzz
  reason?: string
}

export interface FileReport {
  op: FilePatch['kind']
  path: string
  moveTo?: string
  status: 'applied' | 'failed' | 'held'
  reason?: string
  hunks: HunkReport[]
}

/** A file the patch writes: its bytes, or null to delete it. */
export interface PatchWrite {
  path: string
  bytes: Uint8Array | null
}

export interface PatchPlan {
  /** Every file's report, in the patch's order. */
  files: FileReport[]
  /** What to commit: the files whose content changes. */
  writes: PatchWrite[]
  /** Every file applied. */
  complete: boolean
}

const encoder = new TextEncoder()

/**
 * @example
 * const plan = planPatch(parsePatch(text), { read: (path) => store.read(path) })
 * if (plan.writes.length > 0) store.commit(plan.writes, toolCallId)
 */
export function planPatch(patch: Patch, source: PatchSource, options: { cwd?: string; atomic?: boolean } = {}): PatchPlan {
  // Paths first: a patch that names anything outside the workspace is refused whole (PATH_ESCAPE).
  const files = patch.files.map((file) => ({
    ...file,
    path: filePath(file.path, options),
    ...(file.kind === 'update' && file.moveTo !== null ? { moveTo: filePath(file.moveTo, options) } : {}),
  })) as FilePatch[]
  const original = new Map<string, string | null | 'binary'>()
  const staged = new Map<string, string | null>()
  const read = (path: string): string | null | 'binary' => {
    if (staged.has(path)) return staged.get(path)!
    if (!original.has(path)) {
      const bytes = source.read(path)
      original.set(path, bytes === null ? null : (textOf(bytes) ?? 'binary'))
    }
    return original.get(path)!
  }
  const reports: FileReport[] = []
  for (const file of files) {
    const report: FileReport = { op: file.kind, path: file.path, status: 'applied', hunks: [] }
    reports.push(report)
    const current = read(file.path)
    const fail = (reason: string) => Object.assign(report, { status: 'failed', reason })
    if (file.kind === 'add') {
      if (current !== null) fail(`a file exists at ${file.path} (patch it with an update instead)`)
      else staged.set(file.path, file.text)
      continue
    }
    if (current === null) {
      fail(`no file at ${file.path}`)
      continue
    }
    if (current === 'binary') {
      fail(`${file.path} is binary`)
      continue
    }
    if (file.kind === 'delete') {
      staged.set(file.path, null)
      continue
    }
    const target = file.moveTo ?? file.path
    if (file.moveTo !== null) report.moveTo = file.moveTo
    const result = applyHunks(splitLines(current), file.hunks)
    report.hunks = result.hunks
    if (!result.ok) {
      const failed = result.hunks.find((h) => h.status === 'failed')!
      fail(`hunk ${failed.hunk} of ${file.path} does not apply: ${failed.reason}`)
      continue
    }
    if (target !== file.path && read(target) !== null) {
      fail(`a file exists at ${target}, the move's destination`)
      for (const hunk of report.hunks) hunk.status = 'held'
      continue
    }
    staged.set(file.path, null)
    staged.set(target, joinLines(result.text))
  }
  const complete = reports.every((report) => report.status === 'applied')
  if (options.atomic && !complete) {
    for (const report of reports) {
      if (report.status !== 'applied') continue
      report.status = 'held'
      report.reason = 'another file of the patch does not apply'
      for (const hunk of report.hunks) hunk.status = 'held'
    }
    return { files: reports, writes: [], complete }
  }
  const writes: PatchWrite[] = []
  for (const [path, text] of staged) {
    if (text === original.get(path)) continue
    if (text === null && !original.has(path)) continue
    writes.push({ path, bytes: text === null ? null : encoder.encode(text) })
  }
  return { files: reports, writes, complete }
}

/** A file's hunks applied in order: every hunk is sought before any is applied. */
function applyHunks(file: TextLines, hunks: Hunk[]): { ok: boolean; hunks: HunkReport[]; text: TextLines } {
  const reports: HunkReport[] = []
  const edits: { start: number; remove: number; insert: string[]; hunk: Hunk }[] = []
  let cursor = 0
  hunks.forEach((hunk, i) => {
    const report: HunkReport = { hunk: i + 1, status: 'applied' }
    reports.push(report)
    let from = cursor
    for (const anchor of hunk.anchors) {
      const found = seek(file.lines, [anchor], from)
      if (!found) return Object.assign(report, { status: 'failed', reason: `its anchor "${anchor}" is not in the file after line ${from}` })
      from = found.index + 1
    }
    const old = hunk.lines.filter((l) => l.op !== '+').map((l) => l.text)
    let start: number
    if (old.length === 0) {
      // A pure insertion: where the patch says, after its anchors, or at the end.
      start = hunk.oldStart !== null ? hunk.oldStart - 1 : hunk.anchors.length > 0 ? from : file.lines.length
      if (start < from || start > file.lines.length) return Object.assign(report, { status: 'failed', reason: `line ${start + 1} is not in the file after the previous hunk` })
      report.line = start + 1
    } else {
      const found = seek(file.lines, old, from, { atEnd: hunk.atEnd, near: hunk.oldStart === null ? null : hunk.oldStart - 1 })
      if (!found) return Object.assign(report, { status: 'failed', reason: `its ${old.length} context and removed line(s) are not in the file${from > 0 ? ` after line ${from}` : ''}` })
      start = found.index
      report.line = start + 1
      report.fuzz = found.fuzz
    }
    // Context lines stay as the file has them: a loose match must not rewrite their whitespace.
    const insert: string[] = []
    let k = 0
    for (const line of hunk.lines) {
      if (line.op === ' ') insert.push(file.lines[start + k]!)
      else if (line.op === '+') insert.push(line.text)
      if (line.op !== '+') k++
    }
    edits.push({ start, remove: old.length, insert, hunk })
    cursor = start + old.length
  })
  const ok = reports.every((r) => r.status === 'applied')
  if (!ok) {
    for (const report of reports) if (report.status === 'applied') report.status = 'held'
    return { ok, hunks: reports, text: file }
  }
  const lines: string[] = []
  let at = 0
  let finalNewline = file.finalNewline
  for (const edit of edits) {
    for (; at < edit.start; at++) lines.push(file.lines[at]!)
    lines.push(...edit.insert)
    at = edit.start + edit.remove
    if (at === file.lines.length) {
      // The hunk reaches the end of the file: its markers say whether the file ends with a line end.
      if (edit.hunk.newNoNewline) finalNewline = false
      else if (edit.hunk.oldNoNewline || file.lines.length === 0) finalNewline = true
    }
  }
  for (; at < file.lines.length; at++) lines.push(file.lines[at]!)
  return { ok, hunks: reports, text: { lines, eol: file.eol, finalNewline } }
}
