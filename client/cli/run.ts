/**
 * `neuron run <plan.json>`: starts an orchestration from a file (the body of
 * `POST /v1/orchestrations`: a goal, and a plan or none for a planning turn)
 * and follows it, printing one line per package each time its beat or burn
 * changes, until the orchestration ends. Ctrl-C cancels the orchestration; a
 * second Ctrl-C leaves it running and exits.
 */
import type { NeuronClient } from '../index.ts'
import type { CreateOrchestrationInput, OrchestrationView } from '../types.ts'
import type { Style } from './render.ts'

type Package = OrchestrationView['packages'][number]

/** One progress line: package, beat, burn, and why it ended when it did not report. */
export function progressLine(pkg: Package, style: Style): string {
  const beat = pkg.beat === 'reported' ? style.green(pkg.beat) : pkg.beat === 'failed' || pkg.beat === 'blocked' || pkg.beat === 'cancelled' ? style.red(pkg.beat) : style.cyan(pkg.beat)
  const burn = `${pkg.burn.tokens} tok $${pkg.burn.cost.toFixed(4)}`
  const why = pkg.reason ? style.dim(`  ${pkg.reason}`) : pkg.inline ? style.dim(`  inline: ${pkg.inline}`) : ''
  return `${pkg.id.padEnd(16)} ${beat.padEnd(14)} ${burn}${why}\n`
}

/**
 * @returns the exit code: 0 completed, 1 failed or cancelled, 130 left with Ctrl-C.
 */
export async function run(client: NeuronClient, body: CreateOrchestrationInput, options: { json: boolean; style: Style; write: (text: string) => void }): Promise<number> {
  const { json, style, write } = options
  const orchestration = await client.createOrchestration(body)
  if (!json) write(style.bold(`orchestration ${orchestration.id}: ${orchestration.created.goal}\n`))

  const stop = new AbortController()
  let interrupts = 0
  const onSigint = () => {
    interrupts++
    if (interrupts > 1) return stop.abort()
    write(style.dim('^C cancelling the orchestration (Ctrl-C again to leave it running)\n'))
    orchestration.cancel({ reason: 'cancelled from the terminal' }).catch(() => stop.abort())
  }
  process.on('SIGINT', onSigint)

  const shown = new Map<string, string>()
  let view = orchestration.created
  const report = (next: OrchestrationView) => {
    view = next
    for (const pkg of next.packages) {
      const key = `${pkg.beat}|${pkg.burn.tokens}|${pkg.burn.cost}`
      if (shown.get(pkg.id) === key) continue
      shown.set(pkg.id, key)
      write(json ? `${JSON.stringify({ package: pkg.id, beat: pkg.beat, burn: pkg.burn, reason: pkg.reason })}\n` : progressLine(pkg, style))
    }
  }
  try {
    report(view)
    // Events say that something changed; the view says what. One read per event burst, in order.
    for await (const frame of orchestration.events({ signal: stop.signal, onReconnect: () => json || write(style.dim('connection lost; reconnecting…\n')) })) {
      if (frame.kind !== 'event' && frame.kind !== 'replay-end') continue
      report(await orchestration.view())
      if (view.status !== 'running') break
    }
  } finally {
    process.off('SIGINT', onSigint)
  }
  if (stop.signal.aborted) return 130
  if (json) write(`${JSON.stringify({ orchestration: view.id, status: view.status, reason: view.reason, burn: view.burn })}\n`)
  else write(`${view.status === 'completed' ? style.green(view.status) : style.red(view.status)}${view.reason ? ` (${view.reason})` : ''}  ${view.burn.tokens} tok $${view.burn.cost.toFixed(4)}\n`)
  return view.status === 'completed' ? 0 : 1
}
