/**
 * What a file tool call changed, as the workspace API tells it: the paths that differ between the
 * sequence the call was made at and the one it ended at (`GET …/workspace/diff`), each read at both
 * ends and shown as a line diff. Read when the person opens the card, never before.
 *
 * @example
 * card.append(await changesOf(session.workspace, 41, 44))
 */
import type { WorkspaceHandle } from '../../../client/workspace.ts'
import { h } from '../dom.ts'
import { lineDiff, withContext } from './diff.ts'

/** The tools whose calls change workspace files. */
export const FILE_CHANGERS = new Set(['write', 'edit', 'apply_patch'])
/** Files a card shows; a larger change lists the rest by path. */
const MAX_FILES = 20
/** A side past this is named, not diffed. */
const MAX_BYTES = 256 * 1024

export async function changesOf(workspace: WorkspaceHandle, from: number, to: number): Promise<HTMLElement> {
  const { differences } = await workspace.diff(from, { to, limit: MAX_FILES + 1 })
  if (differences.length === 0) return h('p', { class: 'muted' }, 'No file changed.')
  const files = await Promise.all(differences.slice(0, MAX_FILES).map(async (d) => {
    const side = async (at: number, content: string | null) => (content === null ? '' : (await workspace.read(d.path, { at })).text)
    const title = d.before === null ? `${d.path} (new)` : d.after === null ? `${d.path} (deleted)` : d.path
    try {
      const [before, after] = await Promise.all([side(from, d.before), side(to, d.after)])
      if (before.length > MAX_BYTES || after.length > MAX_BYTES) return fileDiff(title, null)
      return fileDiff(title, withContext(lineDiff(before, after)))
    } catch (error) {
      return h('section', { class: 'file-diff' }, h('h4', {}, title), h('p', { class: 'error' }, `Not read: ${(error as Error).message}`))
    }
  }))
  const more = differences.length > MAX_FILES ? h('p', { class: 'muted' }, 'More files changed than are shown here: see the workspace.') : null
  return h('div', { class: 'changes', 'data-changes': true }, ...files, more)
}

function fileDiff(title: string, lines: ReturnType<typeof withContext> | null): HTMLElement {
  if (lines === null) return h('section', { class: 'file-diff', 'data-file': title }, h('h4', {}, title), h('p', { class: 'muted' }, 'Too large to show as a diff.'))
  const body = h('pre', { class: 'diff', tabindex: 0 },
    ...lines.map((line) => line === null ? h('span', { class: 'gap' }, '…\n') : h(line.op === '+' ? 'ins' : line.op === '-' ? 'del' : 'span', { 'data-op': line.op }, `${line.op} ${line.text}\n`)))
  return h('section', { class: 'file-diff', 'data-file': title }, h('h4', {}, title), body)
}
