/**
 * How the CLI shows a session: streamed text as it arrives, tool calls and
 * results on one line each, failures in red, and on a terminal a running
 * tool's progress as one line redrawn in place. Colour only on a TTY (and
 * never with NO_COLOR).
 */
import { EVENT, isSessionEvent } from '../../objects/session/events/events.ts'
import { TextOnce } from '../text-once.ts'
import type { SessionFrame, Stored } from '../types.ts'

export interface Style {
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  cyan(text: string): string
  bold(text: string): string
}

export function styleFor(stream: NodeJS.WriteStream): Style {
  const on = Boolean(stream.isTTY) && !process.env.NO_COLOR
  const wrap = (open: number, close: number) => (text: string) => (on ? `\x1b[${open}m${text}\x1b[${close}m` : text)
  return { dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), cyan: wrap(36, 39), bold: wrap(1, 22) }
}

const short = (value: unknown, max = 60): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const line = text.replace(/\s+/g, ' ')
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * Turns frames into terminal text. Text deltas are printed as they come; a
 * `snapshot` (after a reconnect) prints the open step's text the deltas missed;
 * the durable `text` event then prints only what neither printed, so text is
 * neither lost nor doubled (text-once.ts).
 */
export class Renderer {
  readonly #style: Style
  readonly #write: (text: string) => void
  readonly #live: boolean
  readonly #once = new TextOnce()
  #atLineStart = true
  /** The progress line drawn in place (live only), until the next output replaces it. */
  #status = false

  /** `live`: a terminal, where a running tool's progress is one line redrawn in place. */
  constructor(style: Style, write: (text: string) => void, options: { live?: boolean } = {}) {
    this.#style = style
    this.#write = write
    this.#live = options.live ?? false
  }

  frame(frame: SessionFrame): void {
    if (frame.kind === 'delta' && frame.delta.type === 'tool-progress') return this.#progress(frame.delta)
    const added = this.#once.next(frame)
    if (added) this.#text(added.text)
    if (frame.kind === 'event') this.event(frame.envelope)
  }

  event(event: Stored): void {
    if (!isSessionEvent(event)) return
    const s = this.#style
    switch (event.type) {
      case EVENT.toolCalled:
        return this.#line(s.cyan(`⚙ ${event.payload.name}(${short(event.payload.input)})`))
      case EVENT.toolSucceeded:
        return this.#line(s.green(`✓ ${short(event.payload.content)}`))
      case EVENT.toolFailed:
        return this.#line(s.red(`✗ ${short(event.payload.error.code)}`))
      case EVENT.toolCancelled:
        return this.#line(s.dim(`⊘ cancelled: ${short(event.payload.reason)}`))
      case EVENT.stepFailed:
        return this.#line(s.red(`error: ${short(event.payload.error.code)} ${short(event.payload.error.message, 120)}`))
      case EVENT.retried:
        return this.#line(s.dim(`retrying (attempt ${event.payload.attempt}, HTTP ${event.payload.status})`))
      case EVENT.interrupted:
        return this.#line(s.dim('interrupted'))
      case EVENT.halted:
        return this.#line(s.dim(`halted: ${short(event.payload.reason)}`))
    }
  }

  /** A note of the CLI itself (reconnecting, …), on its own line. */
  note(text: string): void {
    this.#line(this.#style.dim(text))
  }

  /** Ends the current line, if text is open on it. */
  endLine(): void {
    this.#clearStatus()
    if (!this.#atLineStart) this.#write('\n')
    this.#atLineStart = true
  }

  /** A running tool's progress (MCP `notifications/progress`, a host tool's): `⋯ message  3/10`, redrawn in place. */
  #progress(delta: { progress: unknown; total?: number; message?: string }): void {
    if (!this.#live) return
    this.endLine()
    const count = typeof delta.progress === 'number' ? `${delta.progress}${delta.total === undefined ? '' : `/${delta.total}`}` : short(delta.progress, 40)
    this.#write(this.#style.dim(`⋯ ${delta.message ? `${short(delta.message, 60)}  ` : ''}${count}`))
    this.#status = true
  }

  #clearStatus(): void {
    if (!this.#status) return
    this.#write('\r\x1b[2K')
    this.#status = false
  }

  #text(text: string): void {
    this.#clearStatus()
    this.#write(text)
    this.#atLineStart = text.endsWith('\n')
  }

  #line(text: string): void {
    this.endLine()
    this.#write(`${text}\n`)
  }
}
