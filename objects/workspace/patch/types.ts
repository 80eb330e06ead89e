/**
 * A parsed patch, whichever format it came in (parse.ts): per file, an add, a delete, or an update
 * made of hunks (and perhaps a move). Both parsers produce this, and one applier (apply.ts) reads it.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../../core/errors.ts'

/** One line of a hunk: context (`' '`), removed (`'-'`) or added (`'+'`). */
export interface HunkLine {
  op: ' ' | '-' | '+'
  text: string
}

/** One hunk: where it claims to be, and its lines. */
export interface Hunk {
  /** Lines the hunk is sought after, in order (the `@@ class Foo` lines of the `*** Begin Patch` format). */
  anchors: string[]
  /** The 1-based line the old side starts at, when the format says (a unified diff's `@@ -12,3`). */
  oldStart: number | null
  lines: HunkLine[]
  /** The hunk must end at the end of the file (`*** End of File`, or the old side had no final newline). */
  atEnd: boolean
  /** A unified diff's `\ No newline at end of file` after the old side's last line. */
  oldNoNewline: boolean
  /** The same after the new side's last line. */
  newNoNewline: boolean
}

export type FilePatch =
  | { kind: 'add'; path: string; text: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo: string | null; hunks: Hunk[] }

/** Which format a patch was written in. */
export type PatchFormat = 'begin-patch' | 'unified'

export interface Patch {
  format: PatchFormat
  files: FilePatch[]
}

/**
 * A patch that cannot be read: `PATCH_INVALID` (400) with the 1-based line of the patch text.
 *
 * @example
 * throw invalid(12, 'a hunk line must start with " ", "-" or "+"')
 */
export function invalid(line: number, reason: string): NeuronError {
  return new NeuronError('PATCH_INVALID', `patch line ${line}: ${reason}`, { status: 400, details: { line, reason } })
}

/** A hunk with no lines yet. */
export function emptyHunk(anchors: string[] = [], oldStart: number | null = null): Hunk {
  return { anchors, oldStart, lines: [], atEnd: false, oldNoNewline: false, newNoNewline: false }
}
