/**
 * Is the person using this very tile right now? Its frame holds the trusted page's focus and the
 * page has transient user activation (a click or key press in the last few seconds, which the
 * browser also gives the page when it lands in a frame inside it). Every person-facing effect asks
 * this one question: the clipboard, the wallet, the owner's consent to Agent Mode, and a tile's
 * key derivation; `decideGesture` (policy.ts) is the one decision over these facts.
 *
 * The click that sent a frame's message and the page's record of which frame has focus travel
 * separately inside the browser (an isolated frame runs in another process), so the message can
 * arrive first: focus is looked at again for up to `LIMITS.focusSettleMs` before it counts as absent.
 *
 * @example
 * const gesture = createGestureCheck({ frameOf: (ep) => frames.of(ep) })
 * decideGesture(await gesture(ep)) // { allow: true } during a click in that tile
 */
import type { Endpoint } from './endpoints.ts'
import type { FrameRecord } from './frames.ts'
import { LIMITS } from '../protocol/limits.ts'

/** What the page sees of the person's gesture for one endpoint. */
export interface Gesture {
  focused: boolean
  activated: boolean
}

export interface GestureDeps {
  /** The frame an endpoint is bound to. */
  frameOf(ep: Endpoint): FrameRecord | undefined
  /** Platform facts, replaceable in tests of the page itself. */
  focusedFrame?(): HTMLIFrameElement | null
  activated?(): boolean
}

/** Builds the one gesture check the kernel's person-facing actions share. */
export function createGestureCheck(deps: GestureDeps): (ep: Endpoint) => Promise<Gesture> {
  const focusedFrame = deps.focusedFrame ?? (() => (document.hasFocus() && document.activeElement instanceof HTMLIFrameElement ? document.activeElement : null))
  const activated = deps.activated ?? (() => navigator.userActivation?.isActive === true)
  return async function gesture(ep) {
    const frame = deps.frameOf(ep)
    const focused = () => !!frame && frame.endpoint === ep && focusedFrame() === frame.iframe
    for (const until = performance.now() + LIMITS.focusSettleMs; !focused() && performance.now() < until; ) await new Promise((r) => setTimeout(r, 10))
    return { focused: focused() && ep.live, activated: activated() }
  }
}
