/**
 * The person's consent for app-backend effects, drawn by the trusted page: an update call on their
 * behalf (`canister.call_dialog`: the method, the app, a summary of the input) or a persistent
 * outbound grant (`backend_calls.request`: the origin). App titles are shown as untrusted text;
 * arming and Escape are the shared dialog's (consent-dialog.ts).
 *
 * @example
 * new BackendConsentView(kernel, document.querySelector('#backend-dialog')!)
 */
import { ConsentDialog } from './consent-dialog.ts'
import { h } from './dom.ts'
import type { BackendConsentRequest } from '../kernel/canister/consent.ts'
import type { Kernel } from '../kernel/kernel.ts'

export class BackendConsentView {
  readonly #modal: ConsentDialog

  constructor(
    private readonly kernel: Kernel,
    dialog: HTMLDialogElement,
  ) {
    this.#modal = new ConsentDialog(dialog, (id) => kernel.backendConsent.decide(id, 'deny'))
    kernel.backendConsent.onChange(() => this.#draw(kernel.backendConsent.pending()))
  }

  #draw(request: BackendConsentRequest | undefined) {
    if (!request) return this.#modal.close()
    const button = (label: string, answer: 'allow' | 'deny', cls: string) => h('button', { type: 'button', class: cls, 'data-backend-decision': answer, onclick: () => this.kernel.backendConsent.decide(request.id, answer) }, label)
    this.#modal.show(request.id, () => {
      const app = h('p', {}, h('span', { class: 'untrusted' }, 'App (untrusted title): '), request.title, ` — ${request.app}.`)
      const body =
        request.kind === 'call'
          ? [h('h2', {}, 'Run an update for you?'), app, h('p', {}, 'Method ', h('code', { 'data-consent-method': true }, request.method), ' changes this app\u2019s stored data as you. Input:'), h('pre', { class: 'consent-input', 'data-consent-input': true }, request.summary)]
          : [h('h2', {}, 'Let this app\u2019s backend reach a site?'), app, h('p', {}, 'Its backend may send requests to ', h('code', { 'data-consent-origin': true }, request.origin), ' until you or the app release it.')]
      return { body: [...body, h('p', { class: 'muted' }, `Asked by ${request.caller}.`)], buttons: [button(request.kind === 'call' ? 'Run it' : 'Allow', 'allow', 'primary'), button('Deny', 'deny', 'danger')] }
    })
  }
}
