/**
 * A string streamed in many small pieces (a tool call's argument text), gathered for one read at
 * the end. A piece is usually a slice of the network chunk it arrived in, and in V8 a slice keeps
 * its whole parent string alive: holding every piece until the end would hold every chunk of the
 * stream, and each garbage collection would copy them again (measured: a third of a tool-input
 * parse). So every `RUN` pieces are joined into one flat string, a copy of just their
 * characters, and only the text itself stays alive. Joining in runs, not on every piece, keeps
 * the total copying linear.
 */

const RUN = 64

/**
 * @example
 * const args = new Fragments()
 * args.push('{"a"')
 * args.push(':1}')
 * args.text() // '{"a":1}'
 */
export class Fragments {
  #joined = ''
  #pieces: string[] = []

  push(piece: string): void {
    const pieces = this.#pieces
    pieces.push(piece)
    if (pieces.length < RUN) return
    this.#joined += pieces.join('')
    pieces.length = 0
  }

  /** Everything pushed so far, in order. */
  text(): string {
    return this.#pieces.length === 0 ? this.#joined : this.#joined + this.#pieces.join('')
  }
}
