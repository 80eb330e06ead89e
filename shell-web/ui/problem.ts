/**
 * The page a view shows instead of its content when it cannot show it: an unknown id, a refusal. It says what happened and what to do, and offers no action that cannot work.
 *
 * @example
 * root.replaceChildren(problemPage(problemOf(error, 'orchestration', id), h('a', { href: '#orchestrations' }, 'All orchestrations')))
 */
import { NeuronApiError } from '../../client/index.ts'
import { h } from './dom.ts'

export interface Problem {
  title: string
  text: string
  /** The server's code, when it answered one. */
  code?: string
}

/** What an error reading `what` named `id` means to the person. */
export function problemOf(error: unknown, what: string, id: string): Problem {
  if (!(error instanceof NeuronApiError)) return { title: `Cannot show this ${what}`, text: error instanceof Error ? error.message : String(error) }
  const code = error.code
  if (error.status === 404 || code.startsWith('INVALID_')) return { title: `No ${what} “${id}”`, text: `There is no ${what} with this id that you may see: it does not exist, or it is not yours or shared with you.`, code }
  if (error.status === 403) return { title: `You may not see this ${what}`, text: `${error.message}. Ask its owner to share it with you.`, code }
  if (error.status === 401) return { title: 'Your sign-in was refused', text: `${error.message}. Sign in again.`, code }
  return { title: `Cannot show this ${what}`, text: error.message, code }
}

export function problemPage(problem: Problem, ...after: Node[]): HTMLElement {
  return h('div', { class: 'problem', role: 'status', 'data-problem': problem.code ?? 'none' },
    h('h2', {}, problem.title),
    h('p', {}, problem.text, problem.code ? h('span', { class: 'muted' }, ` (${problem.code})`) : null),
    ...after)
}

/** A `<dialog>` asking to confirm `action`; resolves true only if the person confirms. */
export function confirmDialog(host: HTMLElement, question: string, detail: string, action: string, keep: string, extra?: HTMLElement): Promise<boolean> {
  return new Promise((resolve) => {
    const confirm = h('button', { class: 'danger', value: 'confirm', 'data-action': 'confirm' }, action)
    const dialog = h('dialog', { class: 'confirm', 'aria-label': question },
      h('form', { method: 'dialog' },
        h('h2', {}, question),
        h('p', {}, detail),
        extra ?? null,
        h('div', { class: 'row' }, confirm, h('button', { value: 'keep', 'data-action': 'keep', formnovalidate: true, autofocus: true }, keep))))
    dialog.addEventListener('close', () => {
      dialog.remove()
      resolve(dialog.returnValue === 'confirm')
    })
    host.append(dialog)
    dialog.showModal()
  })
}
