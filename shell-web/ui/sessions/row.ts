/**
 * One session in the list: its title (a button that opens it; "Rename" edits it in place, Enter
 * saves, Escape cancels), agent, status badge, last activity, a badge for permission requests
 * waiting for the owner, and the Fork and Archive (or Restore) actions. Every control is a native
 * button or input, so the whole row is reachable by keyboard. Text is always set as text.
 *
 * @example
 * list.append(renderRow(row, { open, rename, archive, fork }))
 */
import { h } from '../dom.ts'
import type { Row } from './list-state.ts'

export interface RowActions {
  open(id: string): void
  rename(id: string, title: string): Promise<void>
  archive(id: string, archived: boolean): void
  fork(id: string): void
}

const STATUS: Record<Row['status'], string> = { idle: 'Idle', running: 'Running', waiting: 'Waiting for approval', halted: 'Halted', unknown: 'Status unknown' }

/** "3 min ago", "yesterday"-like relative times, with the exact time in the title. */
export function ago(at: number | null, now = Date.now()): string {
  if (!at) return ''
  const s = Math.max(0, Math.round((now - at) / 1000))
  if (s < 45) return 'just now'
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`
  return `${Math.round(s / 86_400)} d ago`
}

export function renderRow(row: Row, actions: RowActions): HTMLLIElement {
  const name = row.title ?? 'Untitled session'
  const title = h('button', { type: 'button', class: 'session-open', 'data-action': 'open', title: `Open ${name}`, onclick: () => actions.open(row.id) }, name)
  const editor = h('form', { class: 'session-rename', hidden: true })
  const input = h('input', { name: 'title', 'aria-label': `New title for ${name}`, maxlength: 200, value: row.title ?? '' })
  const error = h('span', { class: 'error', role: 'alert' })
  const close = () => {
    editor.hidden = true
    title.hidden = false
    title.focus()
  }
  editor.append(input, h('button', { type: 'submit' }, 'Save'), h('button', { type: 'button', onclick: close }, 'Cancel'), error)
  editor.addEventListener('submit', (event) => {
    event.preventDefault()
    actions.rename(row.id, input.value).then(close, (e: unknown) => (error.textContent = `${(e as { code?: string }).code ?? ''} ${(e as Error).message}`.trim()))
  })
  input.addEventListener('keydown', (event) => event.key === 'Escape' && (event.preventDefault(), close()))
  const edit = () => {
    title.hidden = true
    editor.hidden = false
    input.value = row.title ?? ''
    input.focus()
    input.select()
  }
  const approvals = row.approvals > 0 ? h('span', { class: 'badge approvals', 'data-approvals': row.approvals }, `${row.approvals} to approve`) : null
  return h(
    'li',
    { class: 'session-row', 'data-session': row.id, 'data-status': row.status },
    h('div', { class: 'session-title' }, title, editor),
    h(
      'div',
      { class: 'session-meta' },
      h('span', { class: `badge status ${row.status}` }, STATUS[row.status]),
      approvals,
      row.agent ? h('span', { class: 'agent' }, row.agent) : null,
      row.lastActivityAt ? h('time', { datetime: new Date(row.lastActivityAt).toISOString(), title: new Date(row.lastActivityAt).toLocaleString() }, ago(row.lastActivityAt)) : null,
      row.forkedFrom ? h('span', { class: 'forked' }, 'fork') : null,
    ),
    h(
      'div',
      { class: 'session-actions' },
      h('button', { type: 'button', 'data-action': 'rename', 'aria-label': `Rename ${name}`, onclick: edit }, 'Rename'),
      h('button', { type: 'button', 'data-action': 'fork', 'aria-label': `Fork ${name}`, onclick: () => actions.fork(row.id) }, 'Fork'),
      h('button', { type: 'button', 'data-action': row.archived ? 'restore' : 'archive', 'aria-label': `${row.archived ? 'Restore' : 'Archive'} ${name}`, onclick: () => actions.archive(row.id, !row.archived) }, row.archived ? 'Restore' : 'Archive'),
    ),
  )
}
