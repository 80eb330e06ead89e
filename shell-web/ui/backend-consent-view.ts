/**
 * The person's consent for app-backend effects, drawn by the trusted page: an update call on their
 * behalf (`canister.call_dialog`: the method, the app, a summary of the input) or a persistent
 * outbound grant (`backend_calls.request`: the origin). Like the other dialogs, the decision
 * buttons arm only after a short delay (a click aimed at the app's tile cannot land on Allow),
 * Escape denies, and app titles are shown as untrusted text.
 *
 * @example
 * new BackendConsentView(kernel, document.querySelector('#backend-dialog')!)
 */
import { h } from './dom.ts'
import type { BackendConsentRequest } from '../kernel/canister/consent.ts'
import type { Kernel } from '../kernel/kernel.ts'

const ARM_DELAY_MS = 400

export class BackendConsentView {
  #shown?: number

  constructor(
    private readonly kernel: Kernel,
    private readonly dialog: HTMLDialogElement,
  ) {
    kernel.backendConsent.onChange(() => this.#draw(kernel.backendConsent.pending()))
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault() // Escape denies explicitly
      if (this.#shown !== undefined) kernel.backendConsent.decide(this.#shown, 'deny')
    })
  }

  #draw(request: BackendConsentRequest | undefined) {
    if (!request) {
      this.#shown = undefined
      if (this.dialog.open) this.dialog.close()
      return
    }
    if (this.#shown === request.id) return
    this.#shown = request.id
    const button = (label: string, answer: 'allow' | 'deny', cls: string) => {
      const b = h('button', { type: 'button', class: cls, 'data-backend-decision': answer, onclick: () => this.kernel.backendConsent.decide(request.id, answer) }, label)
      b.disabled = true
      return b
    }
    const buttons = [button(request.kind === 'call' ? 'Run it' : 'Allow', 'allow', 'primary'), button('Deny', 'deny', 'danger')]
    const app = h('p', {}, h('span', { class: 'untrusted' }, 'App (untrusted title): '), request.title, ` — ${request.app}.`)
    const body =
      request.kind === 'call'
        ? [h('h2', {}, 'Run an update for you?'), app, h('p', {}, 'Method ', h('code', { 'data-consent-method': true }, request.method), ' changes this app\u2019s stored data as you. Input:'), h('pre', { class: 'consent-input', 'data-consent-input': true }, request.summary)]
        : [h('h2', {}, 'Let this app\u2019s backend reach a site?'), app, h('p', {}, 'Its backend may send requests to ', h('code', { 'data-consent-origin': true }, request.origin), ' until you or the app release it.')]
    this.dialog.replaceChildren(h('form', { method: 'dialog', 'data-consent-kind': request.kind }, ...body, h('p', { class: 'muted' }, `Asked by ${request.caller}.`), h('div', { class: 'actions' }, ...buttons)))
    if (!this.dialog.open) this.dialog.showModal()
    setTimeout(() => buttons.forEach((b) => (b.disabled = false)), ARM_DELAY_MS)
  }
}
