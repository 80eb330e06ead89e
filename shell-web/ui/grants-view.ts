/**
 * Pending grant requests and active grants, drawn by the trusted page. The
 * dialog shows the oldest pending request. Every decision button — in the
 * dialog and in the pending list — arms only a short delay after its request
 * first appeared, so a click aimed at an app (or at a request an app has just
 * swapped for another) cannot land on "Allow". App titles and reasons are
 * untrusted text and are shown as such.
 *
 * @example
 * new GrantsView(kernel, document.querySelector('#grants')!, document.querySelector('dialog')!)
 */
import { ARM_DELAY_MS, ConsentDialog } from './consent-dialog.ts'
import { h, throttled } from './dom.ts'
import type { Decision, PendingGrant } from '../kernel/consent/grants.ts'
import type { Kernel } from '../kernel/kernel.ts'

export class GrantsView {
  readonly #modal: ConsentDialog
  /** When each pending request was first drawn (its buttons arm ARM_DELAY_MS later). */
  #firstDrawn = new Map<number, number>()
  #rearm?: ReturnType<typeof setTimeout>

  constructor(
    private readonly kernel: Kernel,
    private readonly panel: HTMLElement,
    dialog: HTMLDialogElement,
  ) {
    this.#modal = new ConsentDialog(dialog, (id) => kernel.grants.decide(id, 'deny'))
    const render = throttled(() => this.render(), 16)
    kernel.grants.onChange(render)
    this.render()
  }

  render(): void {
    const pending = this.kernel.grants.pending()
    const sessions = this.kernel.grants.sessions()
    const now = performance.now()
    for (const id of this.#firstDrawn.keys()) if (!pending.some((p) => p.id === id)) this.#firstDrawn.delete(id)
    for (const p of pending) if (!this.#firstDrawn.has(p.id)) this.#firstDrawn.set(p.id, now)
    const unarmed = pending.filter((p) => now - this.#firstDrawn.get(p.id)! < ARM_DELAY_MS)
    clearTimeout(this.#rearm)
    if (unarmed.length) this.#rearm = setTimeout(() => this.render(), ARM_DELAY_MS - (now - Math.min(...unarmed.map((p) => this.#firstDrawn.get(p.id)!))) + 1)
    this.panel.replaceChildren(
      h('h2', {}, 'Pending grants'),
      pending.length ? h('ul', { class: 'pending' }, ...pending.map((p) => h('li', { 'data-grant': p.id }, this.#describe(p), ...this.#buttons(p, unarmed.includes(p))))) : h('p', { class: 'muted' }, 'None.'),
      h('h2', {}, 'Active grants'),
      sessions.length
        ? h('ul', { class: 'active-grants' }, ...sessions.map((g) => h('li', {}, `${g.sourceApp} → ${g.targetApp} (session) `, h('button', { onclick: () => this.kernel.grants.revoke(g.sourceApp, g.targetApp) }, 'Revoke'))))
        : h('p', { class: 'muted' }, 'None.'),
    )
    this.#dialog(pending[0])
  }

  #dialog(head: PendingGrant | undefined) {
    if (!head) return this.#modal.close()
    const title = (app: string) => this.kernel.manifest(app)?.title ?? app
    this.#modal.show(head.id, () => ({
      body: [
        h('h2', {}, 'Allow access?'),
        h('p', {}, h('strong', {}, title(head.sourceApp)), ` (${head.sourceApp}) wants to list and call the tools of `, h('strong', {}, title(head.targetApp)), ` (${head.targetApp}).`),
        head.reason ? h('p', { class: 'reason' }, h('span', { class: 'untrusted' }, 'The app says (untrusted): '), head.reason) : null,
        h('p', { class: 'muted' }, `Asked by ${head.endpoint} for ${head.scope === 'call' ? 'one call' : 'this session'}.`),
      ],
      buttons: this.#buttons(head, true),
    }))
  }

  #describe(p: PendingGrant): string {
    return `${p.sourceApp} → ${p.targetApp} (${p.scope === 'call' ? 'one call' : 'session'}) `
  }

  #buttons(p: PendingGrant, armLater: boolean): HTMLButtonElement[] {
    const make = (label: string, decision: Decision, cls: string) => {
      const b = h('button', { type: 'button', class: cls, 'data-decision': decision, onclick: () => this.kernel.grants.decide(p.id, decision) }, label)
      b.disabled = armLater
      return b
    }
    return [make('Allow once', 'call', 'secondary'), make('Allow for this session', 'session', 'primary'), make('Deny', 'deny', 'danger')]
  }
}
