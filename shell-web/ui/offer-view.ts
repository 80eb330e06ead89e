/**
 * The install-offer dialog on the trusted page (`apps.install_offer`): what an
 * app offers the person, drawn from the package the kernel fetched itself —
 * its name (untrusted text), version, content id, whether it has a backend and
 * which methods, the network origins it will ask for, the frames it runs, and
 * the installed version it would replace. Accept installs (or upgrades, which
 * reloads the app); Refuse or Escape stores nothing. Like the other dialogs,
 * the buttons arm only after a short delay, so a click aimed at the offering
 * tile cannot land on Accept.
 *
 * @example
 * new OfferView(kernel.installOffers, document.querySelector('#offer-dialog')!)
 */
import { ConsentDialog } from './consent-dialog.ts'
import { h } from './dom.ts'
import type { InstallOffers, PendingOffer } from '../kernel/installs/install-offers.ts'

export class OfferView {
  readonly #modal: ConsentDialog

  constructor(
    private readonly offers: InstallOffers,
    dialog: HTMLDialogElement,
  ) {
    this.#modal = new ConsentDialog(dialog, (id) => offers.decide(id, 'refuse'))
    offers.onChange(() => this.#draw(offers.pending()))
  }

  #draw(pending: PendingOffer | undefined) {
    if (!pending) return this.#modal.close()
    const { offer } = pending
    const button = (label: string, answer: 'accept' | 'refuse', cls: string) => h('button', { type: 'button', class: cls, 'data-offer-decision': answer, onclick: () => this.offers.decide(pending.id, answer) }, label)
    this.#modal.show(pending.id, () => ({
      body: [
        h('h2', {}, pending.upgradeFrom ? 'Upgrade this app?' : 'Install this app?'),
        h('p', {}, h('span', { class: 'untrusted' }, 'Name (untrusted): '), offer.name, ` — ${offer.app} version ${offer.version}`),
        h('dl', { class: 'offer' },
          h('dt', {}, 'Content id'), h('dd', { 'data-offer': 'hash' }, h('code', {}, offer.hash)),
          h('dt', {}, 'Backend'), h('dd', { 'data-offer': 'backend' }, offer.backend ? `yes: ${offer.methods.join(', ') || 'no methods'}` : 'no'),
          h('dt', {}, 'Will ask to reach'), h('dd', { 'data-offer': 'origins' }, offer.origins.length ? offer.origins.join(', ') : 'no network origins'),
          h('dt', {}, 'Runs'), h('dd', {}, offer.frames.join(', ')),
          h('dt', {}, 'From'), h('dd', {}, h('code', {}, pending.url)),
        ),
        pending.upgradeFrom ? h('p', {}, `Version ${pending.upgradeFrom} is installed: upgrading reloads the app; its open calls end and its grants and Agent Mode must be given again.`) : null,
        h('p', { class: 'muted' }, `Offered by ${pending.endpoint}.`),
      ],
      buttons: [button(pending.upgradeFrom ? `Upgrade from ${pending.upgradeFrom}` : 'Install', 'accept', 'primary'), button('Refuse', 'refuse', 'danger')],
    }))
  }
}
