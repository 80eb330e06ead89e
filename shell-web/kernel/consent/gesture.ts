/**
 * Is the person using this very frame right now? The one check behind every person-facing effect:
 * the clipboard, the wallet, the owner's consent to Agent Mode, an install offer, a tile's key
 * derivation, and every dialog an app can open (its gesture must be in the app). The decision is
 * attention.ts's; this module feeds it what the trusted page observes:
 *
 * - its own trusted pointer and key events, caught in the capture phase before anything else
 *   (`pageInteraction`: a gesture on the shell itself, never an app's);
 * - which app frame holds the page's focus, and whether the page has transient activation,
 *   sampled every `attentionSampleMs`, whenever focus leaves or returns to the page, and on
 *   every check;
 * - where its own pointer events last placed the pointer: inside or within
 *   `attentionPointerSlackPx` of one app frame's box, several, or none (and a sample on each
 *   move, so the gap before a click in a tile is seen even when the interval runs late).
 *
 * The click that sent a frame's message and the page's record of focus and activation travel
 * separately inside the browser (an isolated frame runs in another process), so a check looks
 * again for up to `focusSettleMs` before it counts them as absent; a frame whose claim to the
 * gesture resolves later waits for it (at most `maxGestureWaitsPerEndpoint` checks at once).
 *
 * @example
 * const gestures = createGestures({ frameOf: (ep) => frames.of(ep), frameOfElement: (el) => frames.recordOf(el), frames: () => frames.all() })
 * await gestures.check(ep)           // { allow: true } during a click in that frame
 * await gestures.inApp('planner')    // the person is using one of planner's frames right now
 */
import type { Endpoint } from '../bus/endpoints.ts'
import type { FrameRecord } from '../bus/frames.ts'
import { Attention, type AttentionState, type PointerPlace } from './attention.ts'
import { fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

export type GestureDecision = { allow: true } | { allow: false; code: 'USER_ACTIVATION_REQUIRED'; message: string }

export interface Gestures {
  /** `ep`'s own frame has the person's gesture (`activation: false`: the person is using it, no fresh gesture needed). */
  check(ep: Endpoint, options?: { activation?: boolean }): Promise<GestureDecision>
  /** The person's gesture is in a frame of `app` right now (for dialogs an app's background may ask for). */
  inApp(app: string): Promise<GestureDecision>
  /** A dialog opened on the live gesture: it serves nothing more until the person acts again (attention.ts). */
  spend(): void
  /** What the page observes now: the owner's endpoint id, 'page', 'unknown' or null (for tests and devtools). */
  state(): { active: boolean; focused: string | null; owner: string | null; claim: boolean; attended: string | null }
  dispose(): void
}

export interface GestureDeps {
  /** The frame an endpoint is bound to. */
  frameOf(ep: Endpoint): FrameRecord | undefined
  /** The app frame an iframe element is (undefined: not one of the kernel's). */
  frameOfElement(element: Element): FrameRecord | undefined
  /** Every app frame mounted now (to place the pointer). */
  frames(): Iterable<FrameRecord>
}

const PAGE_INTERACTIONS = ['pointerdown', 'mousedown', 'touchstart', 'keydown'] as const
const POINTER_MOVES = ['pointermove', 'pointerover', 'pointerdown'] as const

/** Builds the one gesture check the kernel's person-facing actions and dialogs share, and starts observing. */
export function createGestures(deps: GestureDeps): Gestures {
  const attention = new Attention<FrameRecord>(() => performance.now())
  const focusedFrame = (): FrameRecord | null => {
    const element = document.activeElement
    return element instanceof HTMLIFrameElement && document.hasFocus() ? (deps.frameOfElement(element) ?? null) : null
  }
  let pointer: { x: number; y: number } | undefined
  /** The one app frame whose box (with some slack) holds the pointer's last position on the page. */
  const pointerPlace = (): PointerPlace<FrameRecord> => {
    if (!pointer) return 'page'
    let found: FrameRecord | undefined
    const slack = LIMITS.attentionPointerSlackPx
    for (const frame of deps.frames()) {
      if (frame.state === 'closed' || frame.spec.kind === 'background') continue
      const r = frame.iframe.getBoundingClientRect()
      if (!r.width || pointer.x < r.left - slack || pointer.x > r.right + slack || pointer.y < r.top - slack || pointer.y > r.bottom + slack) continue
      if (found) return 'several'
      found = frame
    }
    return found ?? 'page'
  }
  const sample = () => attention.observe(navigator.userActivation?.isActive === true, focusedFrame(), pointerPlace)
  const onPage = (event: Event) => {
    if (!event.isTrusted) return
    attention.pageInteraction()
    sample()
  }
  const onPointer = (event: PointerEvent) => {
    if (!event.isTrusted) return
    pointer = { x: event.clientX, y: event.clientY }
    // A mouse on its way into a tile crosses the page's pixels: a sample then sees an activation
    // that ran out just before the click, which the interval (late on a busy page) can miss.
    // (pointerdown is the page's own gesture: onPage samples it, after noting whose it is.)
    if (event.type !== 'pointerdown') sample()
  }
  for (const type of POINTER_MOVES) window.addEventListener(type, onPointer, { capture: true, passive: true })
  for (const type of PAGE_INTERACTIONS) window.addEventListener(type, onPage, { capture: true })
  window.addEventListener('blur', sample, { capture: true })
  window.addEventListener('focus', sample, { capture: true })
  const sampler = setInterval(sample, LIMITS.attentionSampleMs)
  const waiting = new Map<Endpoint, number>()

  const refuse = (message: string): GestureDecision => ({ allow: false, ...(fail('USER_ACTIVATION_REQUIRED', message) as { code: 'USER_ACTIVATION_REQUIRED'; message: string }) })

  /** Waits (briefly) for the page to see `frame` focused and, if asked, active; then decides, waiting once for a claim. */
  async function decide(ep: Endpoint, frame: FrameRecord, activation: boolean): Promise<GestureDecision> {
    const requestedAt = performance.now()
    const ready = () => attention.state().focused === frame && (!activation || attention.state().active)
    for (const until = requestedAt + LIMITS.focusSettleMs; (sample(), !ready()) && performance.now() < until; ) await sleep(10)
    let verdict = attention.decide(frame, requestedAt, activation)
    if ('wait' in verdict) {
      const open = waiting.get(ep) ?? 0
      if (open >= LIMITS.maxGestureWaitsPerEndpoint) return refuse(`at most ${LIMITS.maxGestureWaitsPerEndpoint} gesture checks of one frame may wait at once`)
      waiting.set(ep, open + 1)
      try {
        await sleep(Math.max(0, verdict.wait - performance.now()) + LIMITS.attentionSampleMs / 5)
      } finally {
        const left = (waiting.get(ep) ?? 1) - 1
        if (left > 0) waiting.set(ep, left)
        else waiting.delete(ep)
      }
      sample()
      verdict = attention.decide(frame, requestedAt, activation)
      if ('wait' in verdict) verdict = { allow: false, reason: 'the gesture could not be told apart from an earlier one elsewhere' }
    }
    if (!ep.live || frame.endpoint !== ep) return refuse('the frame went away')
    return verdict.allow ? { allow: true } : refuse(verdict.reason)
  }

  return {
    async check(ep, options = {}) {
      const frame = deps.frameOf(ep)
      if (!frame || frame.endpoint !== ep || !ep.live) return refuse('only a frame the person can see and use')
      return decide(ep, frame, options.activation !== false)
    },
    async inApp(app) {
      for (const until = performance.now() + LIMITS.focusSettleMs; ; await sleep(10)) {
        sample()
        const frame = attention.state().focused
        if (frame && frame.spec.app === app && frame.endpoint) return decide(frame.endpoint, frame, true)
        if (performance.now() >= until) return refuse(`the person is not using a frame of "${app}": a dialog needs a click or key press in the app`)
      }
    },
    spend() {
      sample()
      attention.spend()
    },
    state() {
      sample()
      const s: AttentionState<FrameRecord> = attention.state()
      const id = (f: FrameRecord | 'page' | 'unknown' | null) => (f === null || typeof f === 'string' ? f : (f.endpoint?.id ?? `frame:${f.spec.app}`))
      return { active: s.active, focused: id(s.focused), owner: id(s.owner), claim: !!s.claim, attended: id(s.attended) }
    },
    dispose() {
      clearInterval(sampler)
      for (const type of PAGE_INTERACTIONS) window.removeEventListener(type, onPage, { capture: true })
      for (const type of POINTER_MOVES) window.removeEventListener(type, onPointer, { capture: true })
      window.removeEventListener('blur', sample, { capture: true })
      window.removeEventListener('focus', sample, { capture: true })
    },
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
