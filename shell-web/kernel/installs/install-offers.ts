/**
 * The one install-offer dialog that may be open (`apps.install_offer`): what is
 * offered, who offered it, and the person's answer. The slot is taken while the
 * package is still being fetched, so a second offer meanwhile is `UI_BUSY`; it
 * is given back when the person answers, when the offering tile goes away, when
 * the call is abandoned, or when the offer fails before it is shown.
 *
 * @example
 * const slot = offers.reserve(tileId)               // null: UI_BUSY
 * const answer = await offers.show(slot, offer)     // 'accept' | 'refuse' | 'withdrawn'
 * offers.decide(offers.pending()!.id, 'accept')     // drawn by the trusted page only
 */
import type { PackageOffer } from './package-manifest.ts'

export type OfferAnswer = 'accept' | 'refuse' | 'withdrawn'

export interface PendingOffer {
  id: number
  /** The tile that offered it; the dialog is withdrawn if it goes away. */
  endpoint: string
  url: string
  offer: PackageOffer
  /** The installed version this would replace (an upgrade), or null. */
  upgradeFrom: string | null
}

interface Slot {
  id: number
  endpoint: string
  shown?: PendingOffer
  settle?(answer: OfferAnswer): void
}

export class InstallOffers {
  #slot?: Slot
  #nextId = 1
  #listeners = new Set<() => void>()

  /** The offer waiting for the person's answer (undefined while none is shown). */
  pending(): PendingOffer | undefined {
    return this.#slot?.shown
  }

  /** Is the one slot taken (an offer being fetched or shown)? */
  busy(): boolean {
    return !!this.#slot
  }

  /** Takes the one dialog slot for `endpoint`; null when it is taken. */
  reserve(endpoint: string): number | null {
    if (this.#slot) return null
    this.#slot = { id: this.#nextId++, endpoint }
    return this.#slot.id
  }

  /** Gives slot `id` back without showing anything (the offer failed before it was shown). */
  release(id: number): void {
    if (this.#slot?.id !== id) return
    this.#slot.settle?.('withdrawn')
    this.#slot = undefined
    this.#changed()
  }

  /** Shows the offer in slot `id` and resolves with the person's answer ('withdrawn' if the slot was given back). */
  show(id: number, offer: Omit<PendingOffer, 'id' | 'endpoint'>): Promise<OfferAnswer> {
    const slot = this.#slot
    if (slot?.id !== id) return Promise.resolve('withdrawn')
    return new Promise((resolve) => {
      slot.shown = { ...offer, id, endpoint: slot.endpoint }
      slot.settle = (answer) => {
        if (this.#slot === slot) this.#slot = undefined
        slot.settle = undefined
        this.#changed()
        resolve(answer)
      }
      this.#changed()
    })
  }

  /** The person's answer to dialog `id` (the trusted page's buttons). */
  decide(id: number, answer: 'accept' | 'refuse'): void {
    if (this.#slot?.id === id && this.#slot.shown) this.#slot.settle?.(answer)
  }

  /** An endpoint went away: an offer it made is withdrawn. */
  endpointGone(endpoint: string): void {
    if (this.#slot?.endpoint === endpoint) this.release(this.#slot.id)
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
