/**
 * Whose gesture is the page's transient activation? The browser gives the trusted page the
 * activation of every click or key press inside it, in its own chrome or in any app frame, and
 * tells the page nothing about where it happened. What the page can observe is enough to tell,
 * and this module is the one decision over it (pure: the DOM binding is gesture.ts):
 *
 * - its own interactions (trusted pointer and key events on the page itself, never inside a frame);
 * - which app frame holds its focus (a click moves focus into the clicked frame; keys go to the
 *   focused one);
 * - whether the activation is live, sampled often (`attentionSampleMs`), so a fresh activation
 *   (a rising edge) is seen, and a live one can be known to have run out (`activationLifespanMs`);
 * - where the pointer last was on the page: a mouse reaching a frame crosses the page's own pixels
 *   (a tile's header, its border, the gap between tiles), so the page knows which frame's box it
 *   went into, or that it is near several, or none.
 *
 * The rules. A fresh activation belongs to the page if the page saw its own interaction, else to
 * the frame that holds focus once it rose — if focus moved there with it (the click that moved it),
 * or the pointer went into that frame's box and no other frame's (a click or key press in it).
 * Otherwise it is nobody's: a frame can take focus back within a millisecond of losing it to a
 * click in another frame, faster than any sampling, so focus that did not move never says where
 * a click landed. When focus
 * moves into a frame while an activation is live — the person clicked
 * that frame, or the frame took focus itself (`input.focus()` on a timer) — the frame only
 * *claims* the gesture: the live activation may still be the page's or the previous frame's. The
 * claim is honoured once every other source's activation has run out (their last possible
 * refresh plus the lifespan and a margin) while the page is still active and the pointer is in the
 * frame's box — only a gesture in the frame, after it took focus, can keep it live that long. A
 * request made too early for that (its own click is the one that moved focus from another frame)
 * is refused at once.
 *
 * @example
 * const attention = new Attention<Element>(() => performance.now())
 * attention.observe(true, tile, tile)           // the person clicked the tile: a fresh activation, focus and pointer there
 * attention.decide(tile, performance.now())     // { allow: true }
 * attention.pageInteraction(); attention.observe(true, null, 'page') // then the shell's chrome
 * attention.decide(tile, performance.now())     // { allow: false, reason: '…not the frame the person is using…' }
 */
import { LIMITS } from '../../protocol/limits.ts'

export type AttentionVerdict = { allow: true } | { allow: false; reason: string } | { wait: number }

/** Where the pointer last was: in (or at the edge of) one frame's box, on the page away from every frame, or near several. */
export type PointerPlace<F> = F | 'page' | 'several'

/** What the page knows now (for tests and the devtools handle). */
export interface AttentionState<F> {
  active: boolean
  focused: F | null
  /** Whose gesture the live activation is: a frame, the page itself, or unknown; null when none is live. */
  owner: F | 'page' | 'unknown' | null
  /** A frame that took focus while an activation was live, and when its claim can be honoured. */
  claim?: { frame: F; since: number; resolveAt: number }
  /** The focused frame, once a gesture of the person's in it was seen during this focus. */
  attended: F | null
}

export class Attention<F> {
  #active = false
  #focused: F | null = null
  #owner: AttentionState<F>['owner'] = null
  #claim: AttentionState<F>['claim']
  #attended: F | null = null
  /** The live activation already opened a dialog: it serves nothing more (see spend). */
  #spent = false
  #lastPage = -Infinity
  #pageSinceObserved = false
  /** When the live activation rose (a fresh one, not a refresh). */
  #rose = -Infinity
  /** When each frame last stopped holding focus (a frame may receive key presses until then). */
  #focusEnded = new Map<F, number>()

  constructor(
    private readonly now: () => number,
    readonly lifespanMs: number = LIMITS.activationLifespanMs,
    readonly marginMs: number = LIMITS.activationMarginMs,
    /** How far apart the browser's activation and focus updates of one click may reach the page. */
    readonly settleMs: number = LIMITS.focusSettleMs,
  ) {}

  /** The person pressed a pointer or a key on the trusted page itself (not inside an app frame). */
  pageInteraction(): void {
    this.#lastPage = this.now()
    this.#pageSinceObserved = true
  }

  /**
   * One sample of the page: is its activation live, which app frame holds its focus (null: the
   * page), and where the pointer is (asked only when it decides something: it reads layout).
   */
  observe(active: boolean, focused: F | null, where: PointerPlace<F> | (() => PointerPlace<F>)): void {
    const now = this.now()
    const pointer = () => (typeof where === 'function' ? (where as () => PointerPlace<F>)() : where)
    const moved = focused !== this.#focused
    if (moved) {
      if (this.#focused !== null) this.#focusEnded.set(this.#focused, now)
      this.#attended = null
    }
    if (!active) {
      this.#owner = null
      this.#claim = undefined
      this.#spent = false
    } else if (this.#pageSinceObserved) {
      this.#owner = 'page'
      this.#claim = undefined
    } else if (!this.#active || (this.#owner === 'page' && now >= this.#lastPage + this.lifespanMs + this.marginMs)) {
      // A fresh activation with no interaction of the page's own: the click that moved focus into a
      // frame, or a click or key press in the frame that has focus — if the pointer went there (a
      // frame can take focus back faster than any sample, so focus that did not move proves nothing).
      // Still live past the page's own gesture is fresh too: a sample missed the gap between them.
      this.#owner = focused !== null && (moved || pointer() === focused) ? focused : 'unknown'
      this.#claim = undefined
      this.#spent = false
      this.#rose = now
    } else if (moved && focused !== null && this.#owner === 'unknown' && now - this.#rose <= this.settleMs && pointer() === focused) {
      // The same click, its focus update arriving a sample after its activation: the frame the pointer went into.
      this.#owner = focused
      this.#claim = undefined
    } else if (moved) {
      this.#claim = focused === null ? undefined : { frame: focused, since: now, resolveAt: this.#othersLastRefresh(focused) + this.lifespanMs + this.marginMs }
    }
    const claim = this.#claim
    if (claim && active && focused === claim.frame && now >= claim.resolveAt) {
      this.#owner = pointer() === claim.frame ? claim.frame : 'unknown'
      this.#claim = undefined
      // Live past another source's last possible refresh: a newer gesture than any spent one.
      if (claim.resolveAt > claim.since) this.#spent = false
    }
    if (active && focused !== null && this.#owner === focused && !this.#claim) this.#attended = focused
    this.#active = active
    this.#focused = focused
    this.#pageSinceObserved = false
    for (const [frame, at] of this.#focusEnded) if (now - at > this.lifespanMs + this.marginMs) this.#focusEnded.delete(frame)
  }

  /**
   * May `frame` act on the person's gesture now? `activation: false` asks only that the person is
   * using it (its focus came with a gesture of theirs), not for a fresh gesture. `{ wait }`: ask
   * again at that time (after observing), when a claim can be honoured.
   */
  decide(frame: F, requestedAt: number, activation = true): AttentionVerdict {
    if (this.#focused !== frame) return { allow: false, reason: 'not the frame the person is using: another frame or the shell has focus' }
    if (!activation && this.#attended === frame) return { allow: true }
    if (activation && !this.#active) return { allow: false, reason: 'no user activation: call it from a click or key press in this frame' }
    const claim = this.#claim
    if (claim?.frame === frame) {
      // A gesture made after the other sources' last refresh could still be live when the claim resolves.
      if (requestedAt >= claim.resolveAt - this.lifespanMs) return { wait: claim.resolveAt }
      return { allow: false, reason: 'this frame took focus while the last gesture was elsewhere (the shell or another frame): the person must click or type in it again' }
    }
    if (activation && this.#spent) return { allow: false, reason: 'this gesture already opened a dialog: the person must click or type in the frame again' }
    if (this.#owner === frame) return { allow: true }
    return { allow: false, reason: 'the last gesture was not in this frame' }
  }

  /**
   * A dialog opened on the live activation: it is used up. The browser keeps it live, and focus
   * coming back to the frame when the dialog closes would otherwise hand the same click to a
   * second request the app swaps in. A fresh activation, or one proven newer, serves again.
   */
  spend(): void {
    if (this.#active) this.#spent = true
  }

  state(): AttentionState<F> {
    return { active: this.#active, focused: this.#focused, owner: this.#owner, ...(this.#claim ? { claim: { ...this.#claim } } : {}), attended: this.#attended }
  }

  /** The latest moment a source other than `frame` could have refreshed the live activation. */
  #othersLastRefresh(frame: F): number {
    let latest = this.#lastPage
    for (const [other, at] of this.#focusEnded) if (other !== frame && at > latest) latest = at
    return latest
  }
}
