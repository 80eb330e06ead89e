/**
 * Agent Mode on the trusted page: the owner's consent dialog for an app's
 * request to enable an agent entrypoint, and the list of what is enabled, each
 * with a Disable button. Like the grant dialog, the decision buttons arm only
 * after a short delay (a click aimed at the app's tile cannot land on Allow),
 * and the app's title is shown as untrusted text.
 *
 * @example
 * new AgentModeView(kernel, document.querySelector('#agent-mode')!, document.querySelector('#agent-dialog')!)
 */
import { ConsentDialog } from './consent-dialog.ts'
import { h, throttled } from './dom.ts'
import type { ConsentRequest } from '../kernel/agent/agent-mode.ts'
import type { Kernel } from '../kernel/kernel.ts'

export class AgentModeView {
  readonly #modal: ConsentDialog

  constructor(
    private readonly kernel: Kernel,
    private readonly panel: HTMLElement,
    dialog: HTMLDialogElement,
  ) {
    this.#modal = new ConsentDialog(dialog, (id) => kernel.agentMode.decide(id, 'deny'))
    const render = throttled(() => this.render(), 16)
    kernel.agentMode.onChange(() => {
      // A decided or withdrawn request closes its dialog at once: the page must not stay inert meanwhile.
      if (!kernel.agentMode.pending()) this.#modal.close()
      render()
    })
    this.render()
  }

  render(): void {
    const enabled = this.kernel.agentMode.enabled()
    this.panel.replaceChildren(
      h('h2', {}, 'Agent Mode'),
      enabled.length
        ? h('ul', { class: 'agent-enabled' }, ...enabled.map((e) => h('li', { 'data-agent-entrypoint': `${e.app}#${e.entrypoint}` }, `${e.entrypoint} — ${e.app} ${e.version} `, h('button', { 'data-action': 'disable-agent', onclick: () => this.kernel.agentMode.disable(e.app, e.entrypoint, 'disabled by the owner') }, 'Disable'))))
        : h('p', { class: 'muted' }, 'Off for every app. An app asks from its tile (Notes: Let the agent search notes), and you allow it in the dialog.'),
    )
    this.#dialog(this.kernel.agentMode.pending())
  }

  #dialog(request: ConsentRequest | undefined) {
    if (!request) return this.#modal.close()
    const button = (label: string, answer: 'allow' | 'deny', cls: string) => h('button', { type: 'button', class: cls, 'data-agent-decision': answer, onclick: () => this.kernel.agentMode.decide(request.id, answer) }, label)
    this.#modal.show(request.id, () => ({
      body: [
        h('h2', {}, 'Let the agent use this app?'),
        h('p', {}, h('span', { class: 'untrusted' }, 'App (untrusted title): '), request.title, ` — ${request.app} version ${request.version}.`),
        h('p', {}, 'A session\u2019s model connected from this shell may call ', h('code', {}, request.entrypoint), ' while the shell is open. Calls it makes go through the kernel with their own limits and audit; you can disable it at any time in the Agent Mode panel.'),
        h('p', { class: 'muted' }, `Asked by ${request.endpoint}.`),
      ],
      buttons: [button('Enable for the agent', 'allow', 'primary'), button('Deny', 'deny', 'danger')],
    }))
  }
}
