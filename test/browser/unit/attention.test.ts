import { describe, expect, it } from 'vitest'
import { Attention } from '../../../shell-web/kernel/consent/attention.ts'
import { LIMITS } from '../../../shell-web/protocol/limits.ts'

/** A page with a clock the test moves, two app frames and the page's own chrome. */
function page() {
  let now = 1_000
  const attention = new Attention<string>(() => now, 5_000, 150)
  return {
    attention,
    at: (ms: number) => (now = ms),
    /** One sample: activation live, which frame has focus (null: the page), and where the pointer went (by default: there). */
    see: (active: boolean, focused: string | null, pointer: string = focused ?? 'page') => attention.observe(active, focused, pointer),
    chrome: () => attention.pageInteraction(),
    decide: (frame: string, activation = true) => attention.decide(frame, now, activation),
  }
}

describe('whose gesture is the page’s activation', () => {
  it('a click in a frame from an idle page is that frame’s gesture; focus moving elsewhere ends it', () => {
    const p = page()
    p.see(false, null)
    p.at(2_000)
    p.see(true, 'tile') // a fresh activation, and focus went into the tile
    expect(p.decide('tile')).toEqual({ allow: true })
    expect(p.decide('other')).toMatchObject({ allow: false, reason: expect.stringMatching(/not the frame/) })
    // A second click in the same tile: no change the page can see, still the tile's.
    p.at(4_000)
    p.see(true, 'tile')
    expect(p.decide('tile')).toEqual({ allow: true })
  })

  it('a frame that takes focus after a click on the shell’s chrome gets nothing from it', () => {
    const p = page()
    p.see(false, 'thief')
    p.at(2_000)
    p.chrome()
    p.see(true, null) // the chrome took the click, and focus
    p.at(2_050)
    p.see(true, 'thief') // input.focus() on a timer
    expect(p.decide('thief')).toMatchObject({ allow: false, reason: expect.stringMatching(/took focus/) })
    // Asked later it waits until the chrome's activation has run out…
    p.at(2_400)
    expect(p.decide('thief')).toEqual({ wait: 2_000 + 5_000 + 150 })
    // …which it has, unless the person clicked or typed in the frame meanwhile.
    p.at(7_000)
    p.see(false, 'thief')
    p.at(7_160)
    expect(p.decide('thief')).toMatchObject({ allow: false, reason: expect.stringMatching(/no user activation/) })
  })

  it('…and the person really clicking the frame right after the chrome is served once the chrome’s gesture has run out', () => {
    const p = page()
    p.see(false, null)
    p.at(2_000)
    p.chrome()
    p.see(true, null)
    p.at(2_600)
    p.see(true, 'tile') // the click moved focus; the activation was live already
    expect(p.decide('tile')).toEqual({ wait: 7_150 })
    p.at(7_150)
    p.see(true, 'tile') // still live: refreshed by the click in the tile
    expect(p.decide('tile')).toEqual({ allow: true })
  })

  it('a frame that takes focus from another app’s tile the person is using is refused at once', () => {
    const p = page()
    p.see(false, null)
    p.at(2_000)
    p.see(true, 'witness') // the person clicked another app's tile
    p.at(2_040)
    p.see(true, 'thief') // the thief takes focus from it
    expect(p.decide('thief')).toMatchObject({ allow: false, reason: expect.stringMatching(/took focus/) })
    // Nothing it waits for: the other tile could have been typed in until the very moment it lost focus.
    expect(p.attention.state().claim).toEqual({ frame: 'thief', since: 2_040, resolveAt: 2_040 + 5_150 })
  })

  it('a click on the chrome takes the gesture back from the frame that had it', () => {
    const p = page()
    p.see(false, null)
    p.at(2_000)
    p.see(true, 'tile')
    p.at(2_500)
    p.chrome()
    p.see(true, 'tile') // a click on something that keeps no focus: the frame keeps focus, not the gesture
    expect(p.decide('tile')).toMatchObject({ allow: false, reason: expect.stringMatching(/not in this frame/) })
  })

  it('a frame that takes focus back before the page samples gets nothing from a click in another frame: the pointer went there', () => {
    const p = page()
    p.see(false, 'thief', 'witness') // it stole focus earlier; the person's mouse is over another app's tile
    p.at(2_000)
    p.see(true, 'thief', 'witness') // a click in the witness, focus bounced back within the sampling gap
    expect(p.attention.state().owner).toBe('unknown')
    expect(p.decide('thief')).toMatchObject({ allow: false, reason: expect.stringMatching(/not in this frame/) })
    // Near two frames at once, nobody's either.
    p.at(8_000)
    p.see(false, 'thief')
    p.at(9_000)
    p.see(true, 'thief', 'several')
    expect(p.attention.state().owner).toBe('unknown')
    // The person's own click in it, pointer and all.
    p.at(15_000)
    p.see(false, 'thief')
    p.at(16_000)
    p.see(true, 'thief')
    expect(p.decide('thief')).toEqual({ allow: true })
  })

  it('a click whose focus update reaches the page a sample after its activation is still the clicked frame’s', () => {
    const p = page()
    p.see(false, 'witness')
    p.at(2_000)
    p.see(true, 'witness', 'tile') // activation first: focus still reads as the other frame, the pointer went into the tile
    p.at(2_050)
    p.see(true, 'tile', 'tile') // then the focus update
    expect(p.decide('tile')).toEqual({ allow: true })
    // Not so for a frame the pointer did not go into.
    p.at(8_000)
    p.see(false, 'tile')
    p.at(9_000)
    p.see(true, 'tile', 'witness')
    p.at(9_050)
    p.see(true, 'thief', 'witness')
    expect(p.decide('thief')).toMatchObject({ allow: false })
  })

  it('a focus update as late as a loaded machine delivers it (focusSettleMs) is still the clicked frame’s; a later one only claims', () => {
    const p = page()
    p.see(false, 'witness')
    p.at(2_000)
    p.see(true, 'witness', 'tile')
    p.at(2_000 + LIMITS.focusSettleMs - 10)
    p.see(true, 'tile', 'tile')
    expect(p.decide('tile')).toEqual({ allow: true })
    p.at(8_000)
    p.see(false, 'tile')
    p.see(false, 'witness')
    p.at(9_000)
    p.see(true, 'witness', 'tile')
    p.at(9_000 + LIMITS.focusSettleMs + 10)
    p.see(true, 'tile', 'tile')
    expect(p.attention.state().claim).toMatchObject({ frame: 'tile' })
    expect(p.decide('tile')).toMatchObject({ allow: false, reason: expect.stringMatching(/took focus/) })
  })

  it('a gesture that opened a dialog serves nothing more: not when focus comes back, only a fresh or provably newer one', () => {
    const p = page()
    p.see(false, 'tile')
    p.at(2_000)
    p.see(true, 'tile') // a click in the tile
    expect(p.decide('tile')).toEqual({ allow: true })
    p.attention.spend() // it opened a dialog, which takes the focus
    p.at(2_100)
    p.see(true, null, 'tile')
    p.at(2_600)
    p.see(true, 'tile') // the dialog closed without the person: focus returns to the tile, the click still live
    expect(p.decide('tile')).toMatchObject({ allow: false, reason: expect.stringMatching(/already opened a dialog/) })
    // The person answered on the shell (a page interaction) and then clicked the tile again: served once the shell's click has run out.
    p.chrome()
    p.at(3_000)
    p.see(true, null, 'page')
    p.at(3_200)
    p.see(true, 'tile')
    p.at(3_000 + 5_000 + 150)
    p.see(true, 'tile')
    expect(p.decide('tile')).toEqual({ allow: true })
    // And after the activation ran out, a fresh click serves at once.
    p.attention.spend()
    p.at(20_000)
    p.see(false, 'tile')
    p.at(21_000)
    p.see(true, 'tile')
    expect(p.decide('tile')).toEqual({ allow: true })
  })

  it('an activation still live after the shell’s own gesture ran out is a fresh one, though no sample saw the gap', () => {
    const p = page()
    p.see(false, 'tile')
    p.chrome()
    p.at(2_000)
    p.see(true, 'tile', 'page') // a click on the shell
    expect(p.attention.state().owner).toBe('page')
    p.at(2_000 + 5_000 + 200)
    p.see(true, 'tile', 'tile') // its activation ran out and a click in the tile followed between two samples
    expect(p.decide('tile')).toEqual({ allow: true })
  })

  it('a tap (no pointer seen on the page) that moves focus into a frame is that frame’s', () => {
    const p = page()
    p.see(false, null, 'page')
    p.at(2_000)
    p.see(true, 'tile', 'page')
    expect(p.decide('tile')).toEqual({ allow: true })
  })

  it('a fresh activation with the page itself focused and no interaction of its own is nobody’s', () => {
    const p = page()
    p.see(false, null)
    p.at(2_000)
    p.see(true, null)
    expect(p.attention.state().owner).toBe('unknown')
  })

  it('focus only (a key’s lifecycle): the frame the person came to by a gesture, however long ago', () => {
    const p = page()
    p.see(false, null)
    p.at(2_000)
    p.see(true, 'tile')
    p.at(60_000)
    p.see(false, 'tile')
    expect(p.decide('tile', false)).toEqual({ allow: true })
    // A frame that took focus by itself is not one the person is using.
    p.see(false, 'thief')
    expect(p.decide('thief', false)).toMatchObject({ allow: false })
  })
})
