/**
 * The trusted page's modal for one decision the person makes (a grant, Agent Mode's consent, an
 * app-backend consent), drawn the same way for each: the decision buttons arm only `ARM_DELAY_MS`
 * after a request first shows (a click aimed at an app's tile cannot land on Allow), Escape
 * denies explicitly rather than dropping the request, and a request already shown is not redrawn.
 *
 * @example
 * const modal = new ConsentDialog(dialogElement, (id) => kernel.agentMode.decide(id, 'deny'))
 * modal.show(request.id, () => ({ body: [h('h2', {}, 'Allow?')], buttons: [allowButton, denyButton] }))
 * modal.close() // nothing pending
 */
import { h } from './dom.ts'

export const ARM_DELAY_MS = 400

export class ConsentDialog {
  #shown?: number

  constructor(
    private readonly dialog: HTMLDialogElement,
    deny: (id: number) => void,
  ) {
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault() // Escape must not silently drop a request; it denies it explicitly
      if (this.#shown !== undefined) deny(this.#shown)
    })
  }

  /** The request shown now, if any. */
  get shown(): number | undefined {
    return this.#shown
  }

  /** Shows request `id` (unless it is shown already); its buttons arm after `ARM_DELAY_MS`. */
  show(id: number, draw: () => { body: (Node | string | null)[]; buttons: HTMLButtonElement[] }): void {
    if (this.#shown === id) return
    this.#shown = id
    const { body, buttons } = draw()
    for (const b of buttons) b.disabled = true
    this.dialog.replaceChildren(h('form', { method: 'dialog' }, ...body, h('div', { class: 'actions' }, ...buttons)))
    if (!this.dialog.open) this.dialog.showModal()
    setTimeout(() => buttons.forEach((b) => (b.disabled = false)), ARM_DELAY_MS)
  }

  /** Nothing is pending: the dialog closes at once (the page must not stay inert). */
  close(): void {
    this.#shown = undefined
    if (this.dialog.open) this.dialog.close()
  }
}
