/**
 * `neuron chat`: a REPL on one session. Each line is a prompt (a line ending in
 * `\` goes on with the next; a line `"""` starts a block, pasted or typed,
 * that the next `"""` ends); the answer streams as it arrives; tool calls and
 * results show on one line each, a running tool's progress in place. Ctrl-C
 * interrupts the turn on screen (and says so when it had already ended), a
 * second Ctrl-C exits. A tool call that asks permission prompts for the answer: `o` once, `a`
 * always, `r` reject (anything after `r ` is the reason the model reads); an answer given on
 * another surface first closes the prompt. The event stream reconnects by itself after a network
 * drop and resumes where it stopped.
 */
import { createInterface } from 'node:readline'
import { EVENT, isEvent } from '../../objects/session/events/events.ts'
import { NeuronApiError } from '../errors.ts'
import type { SessionHandle } from '../session.ts'
import { ShownTurn } from '../shown-turn.ts'
import { Renderer, type Style } from './render.ts'

export async function chat(session: SessionHandle, style: Style): Promise<number> {
  const out = process.stdout
  const renderer = new Renderer(style, (text) => out.write(text), { live: Boolean(out.isTTY) })
  const stop = new AbortController()
  let busy = false
  /** The turn on screen: what Ctrl-C interrupts. */
  const shown = new ShownTurn()
  /** Prompts sent whose turn has not started yet (by message id). */
  const waiting = new Set<string>()
  /** Permission requests on screen waiting for this person's answer, oldest first (tool call ids). */
  const asks: string[] = []
  const ASK = style.bold('allow? [o]nce / [a]lways / [r]eject [reason] › ')
  let armed = false
  let ended = false
  let exitCode = 0
  let settle!: () => void
  const done = new Promise<void>((resolve) => (settle = resolve))
  const finish = (code: number) => {
    exitCode = code
    stop.abort()
    rl.close()
    settle()
  }

  const { lastSequence } = await session.view()
  // Created after every await: readline starts reading at once, and a piped line must not be lost.
  const PROMPT = style.bold('› ')
  const rl = createInterface({ input: process.stdin, output: out, prompt: PROMPT })
  out.write(style.dim(`session ${session.id} · \\ at a line's end or """ … """ for more lines · Ctrl-C interrupts a turn, twice exits\n`))
  const follow = (async () => {
    for await (const frame of session.events({ after: lastSequence, signal: stop.signal, onReconnect: () => renderer.note('connection lost; reconnecting…') })) {
      renderer.frame(frame)
      shown.apply(frame)
      if (frame.kind === 'event' && isEvent(frame.envelope, EVENT.permissionRequested)) {
        const { toolCallId, tool, reason, input } = frame.envelope.payload
        asks.push(toolCallId)
        renderer.note(style.bold(`${tool} asks permission: ${reason}`) + style.dim(` ${JSON.stringify(input).slice(0, 200)}`))
        rl.setPrompt(ASK)
        rl.prompt()
      }
      if (frame.kind === 'event' && (isEvent(frame.envelope, EVENT.permissionAnswered) || isEvent(frame.envelope, EVENT.permissionExpired))) {
        const at = asks.indexOf(frame.envelope.payload.toolCallId)
        if (at >= 0) asks.splice(at, 1)
        if (asks.length === 0) rl.setPrompt(PROMPT)
      }
      if (frame.kind === 'event' && isEvent(frame.envelope, EVENT.prompted)) {
        for (const id of frame.envelope.payload.messageIds) waiting.delete(id)
      }
      if (frame.kind === 'event' && frame.envelope.type === EVENT.drainEnded && waiting.size === 0) {
        busy = false
        renderer.endLine()
        // After end of input, leave once every prompt sent has had its turn (a pipe may send several).
        if (ended) return finish(0)
        rl.prompt()
      }
    }
  })().catch((error: unknown) => {
    renderer.note(error instanceof NeuronApiError ? `${error.code}: ${error.message}` : String(error))
    finish(1)
  })

  /** Lines of the prompt being typed: after a line ending in `\`, or inside `"""` … `"""`. */
  let lines: string[] = []
  let pasting = false
  const more = () => (rl.setPrompt(style.dim('… ')), rl.prompt())
  rl.on('line', (line) => {
    armed = false
    if (asks.length > 0 && !pasting && lines.length === 0) return answer(asks[0]!, line.trim())
    if (pasting) {
      if (line.trim() !== '"""') return void (lines.push(line), more())
      pasting = false
    } else if (lines.length === 0 && line.trim() === '"""') {
      pasting = true
      return more()
    } else if (line.endsWith('\\')) {
      lines.push(line.slice(0, -1))
      return more()
    } else lines.push(line)
    const text = lines.join('\n').trim()
    lines = []
    rl.setPrompt(PROMPT)
    if (!text) return void (busy || rl.prompt())
    busy = true
    const id = crypto.randomUUID()
    waiting.add(id)
    session.prompt({ id, text }).catch((error: unknown) => {
      waiting.delete(id)
      busy = waiting.size > 0
      renderer.note(style.red(error instanceof NeuronApiError ? `${error.code}: ${error.message}` : String(error)))
      if (ended && !busy) finish(1)
      else if (!busy) rl.prompt()
    })
  })
  /** The person's answer to the oldest request on screen; anything else asks again. */
  const answer = (toolCallId: string, line: string) => {
    const reply = line === 'o' ? 'once' : line === 'a' ? 'always' : line === 'r' || line.startsWith('r ') ? 'reject' : null
    if (reply === null) return void rl.prompt()
    const reason = reply === 'reject' && line.length > 2 ? line.slice(2).trim() : undefined
    asks.shift()
    rl.setPrompt(asks.length > 0 ? ASK : PROMPT)
    session.answerPermission(reason === undefined ? { toolCallId, reply } : { toolCallId, reply, reason }).catch((error: unknown) =>
      renderer.note(style.red(`answer failed: ${error instanceof NeuronApiError ? `${error.code}: ${error.message}` : String(error)}`)),
    )
    if (asks.length > 0) rl.prompt()
  }
  rl.on('SIGINT', () => {
    if (armed) return finish(130)
    armed = true
    if (!busy) return renderer.note('(Ctrl-C again to exit)'), rl.prompt()
    renderer.note('^C interrupting the turn (Ctrl-C again to exit)')
    // The turn on screen, not whatever runs when the request lands (a queued prompt's turn may have started).
    session.interrupt(shown.target()).then(
      (reply) => {
        if (reply.interrupted) return
        renderer.note(reply.step === null ? 'the interrupt arrived when nothing was running' : 'the interrupt arrived after the turn had ended')
      },
      (error: unknown) => renderer.note(style.red(`interrupt failed: ${error instanceof NeuronApiError ? `${error.code}: ${error.message}` : String(error)}`)),
    )
  })
  // End of input (Ctrl-D, or a pipe that ran out): wait for the running turn, then leave.
  rl.on('close', () => {
    ended = true
    if (!busy) finish(exitCode)
  })

  rl.prompt()
  await done
  await follow
  return exitCode
}
