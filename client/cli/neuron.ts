#!/usr/bin/env node
/**
 * `neuron`: the terminal client of a Neuron server, on the typed client
 * (client/) and the public API only.
 *
 *   neuron login [--url URL] [--token JWT]   store a token (loopback: the local dev identity)
 *   neuron sessions [--json]                 your sessions, with their status
 *   neuron chat [ID] [--model P/M]           a REPL; a new session without ID
 *   neuron tail ID [--after N] [--json]      follow a session's events
 *   neuron history ID [--json]               every durable event
 *   neuron run PLAN.json [--json]            an orchestration, one progress line per package
 *   neuron mcp [list|authorize|forget] [SERVER]  your MCP servers; OAuth authorization
 *   neuron schedule [list|add|delete] SESSION [ID]  a session's schedules
 *
 * Exit codes: 0 done, 1 the server refused or failed (its code is printed),
 * 2 a usage or configuration error, 130 left with Ctrl-C.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { EVENT_PREFIX } from '../../objects/session/events/events.ts'
import { NeuronApiError, NeuronClient } from '../index.ts'
import type { SessionView } from '../types.ts'
import { chat } from './chat.ts'
import { type Config, readConfig, writeConfig } from './config.ts'
import { Renderer, styleFor } from './render.ts'
import { run } from './run.ts'
import { mcp } from './mcp.ts'
import { schedule, scheduleInput } from './schedule.ts'

const DEFAULT_URL = 'http://127.0.0.1:8787'

class UsageError extends Error {}

const HELP: Record<string, string> = {
  neuron: `neuron — a terminal client for Neuron sessions

Usage: neuron <command> [options]

Commands:
  login      store a token for a server (on loopback: the local dev identity)
  sessions   list your sessions, with their status
  chat       chat with a session, streaming the answer (a new session without an id)
  tail       follow a session's events as they happen
  history    print a session's durable events
  run        start an orchestration from a file and follow it to the end
  mcp        your MCP servers: list them, authorize one with OAuth, forget its tokens
  schedule   a session's schedules: list them, add one (at, after, every, cron), delete one

Options for every command:
  --url URL  the server (default: $NEURON_URL, else the one you logged in to last, else ${DEFAULT_URL})
  --json     machine-readable output
  -h, --help this help; \`neuron <command> --help\` for a command's

Exit codes: 0 done, 1 the server refused or failed, 2 usage or configuration error, 130 Ctrl-C.`,
  login: `Usage: neuron login [--url URL] [--token JWT]

Stores a bearer token for URL in $NEURON_CONFIG (default ~/.config/neuron/config.json, mode 600)
and checks it with GET /v1/me. Without --token on a loopback URL it signs the local dev identity
from this checkout's .dev.vars (what \`npm run -s token\` prints).`,
  sessions: `Usage: neuron sessions [--url URL] [--json]

Lists your sessions on the server (oldest first), with status and model.`,
  chat: `Usage: neuron chat [ID] [--model PROVIDER/MODEL] [--title TEXT] [--url URL]

Each line you type is a prompt; end a line with \\ to go on with the next, or put a block
(pasted or typed) between two lines of """. The answer streams as it arrives, tool calls and
results show on one line each, a running tool's progress on one line redrawn in place. Ctrl-C
interrupts the turn on screen (and says when it had already ended); a second Ctrl-C exits. A dropped
connection is resumed where it stopped. Without ID a new session is created.`,
  tail: `Usage: neuron tail ID [--after N] [--json] [--url URL]

Follows the session's events (replayed after N, then live) until Ctrl-C. With --json, one
JSON frame per line.`,
  history: `Usage: neuron history ID [--json] [--url URL]

Prints every durable event of the session. With --json, one envelope per line (NDJSON).`,
  run: `Usage: neuron run PLAN.json [--json] [--url URL]

Starts an orchestration from PLAN.json (the body of POST /v1/orchestrations: "goal", and a
"plan" of packages, or none for a planning turn; docs/examples/plan.json is one) and prints one line per package each time its
beat or burn changes, until it ends. With --json, one JSON object per line. Exit 0 when it
completed, 1 when it failed or was cancelled. Ctrl-C cancels it; a second Ctrl-C exits and leaves
it running.`,
  mcp: `Usage: neuron mcp [list] [--json] [--url URL]
       neuron mcp authorize SERVER [--server-url URL] [--client-id ID] [--client-secret S] [--scope S] [--no-wait]
       neuron mcp forget SERVER

list: each MCP server your config lists, its stored header names and its OAuth state.
authorize: prints the URL to open in a browser, then waits until the authorization server has
sent the browser back to Neuron (exit 0), or the URL expired (exit 1; --no-wait returns at once).
--server-url for a server your config does not list; --client-id/--client-secret when the
authorization server does not register clients itself. Neuron keeps the tokens sealed; they
never reach this terminal. forget: drops the server's tokens and client registration.`,
  schedule: `Usage: neuron schedule [list] SESSION [--json] [--url URL]
       neuron schedule add SESSION (--at ISO | --after S | --every S | --cron "m h dom mon dow" [--tz ZONE])
                        --text PROMPT [--id ID] [--steer] [--count N] [--until ISO] [--missed coalesce|skip|all]
       neuron schedule delete SESSION ID

list: the session's live schedules with their next fire times. add: a schedule whose every fire
admits PROMPT to the session once (every/cron at most once a minute; --tz an IANA zone, default
UTC). delete: it never fires again.`,
}

const COMMON = {
  url: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP.neuron}\n`)
    return command ? 0 : 2
  }
  if (!(command in HELP) || command === 'neuron') throw new UsageError(`unknown command "${command}" (see neuron --help)`)
  const extra = {
    login: { token: { type: 'string' } },
    chat: { model: { type: 'string' }, title: { type: 'string' } },
    tail: { after: { type: 'string' } },
    schedule: Object.fromEntries([...['at', 'after', 'every', 'cron', 'tz', 'text', 'id', 'count', 'until', 'missed'].map((k) => [k, { type: 'string' }]), ['steer', { type: 'boolean', default: false }]]) as Record<string, { type: 'string' } | { type: 'boolean'; default: false }>,
    mcp: { 'server-url': { type: 'string' }, 'client-id': { type: 'string' }, 'client-secret': { type: 'string' }, scope: { type: 'string' }, 'no-wait': { type: 'boolean', default: false } },
  } as const
  let parsed
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON, ...(extra[command as keyof typeof extra] ?? {}) } })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values, positionals } = parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] }
  if (values.help) {
    process.stdout.write(`${HELP[command]}\n`)
    return 0
  }
  const json = values.json === true
  const style = styleFor(process.stdout)
  const config = readConfig()
  const url = normalize(typeof values.url === 'string' ? values.url : (process.env.NEURON_URL || (config.current ?? DEFAULT_URL)))
  const max = command === 'schedule' ? 3 : command === 'mcp' ? 2 : command === 'chat' || command === 'sessions' || command === 'login' ? (command === 'chat' ? 1 : 0) : 1
  if (positionals.length > max) throw new UsageError(`too many arguments: ${positionals.join(' ')}`)

  if (command === 'login') return login(url, typeof values.token === 'string' ? values.token : undefined, config, json)
  const entry = config.servers[url]
  if (!entry) throw new UsageError(`not logged in to ${url}: run \`neuron login --url ${url}\``)
  const client = new NeuronClient({ url, token: entry.token })

  switch (command) {
    case 'sessions': {
      const views: (SessionView | { id: string; error: string })[] = []
      for await (const { id } of client.allSessions()) {
        views.push(await client.session(id).view().catch((error: unknown) => ({ id, error: error instanceof NeuronApiError ? error.code : String(error) })))
      }
      if (json) process.stdout.write(`${JSON.stringify(views)}\n`)
      else if (views.length === 0) process.stdout.write(style.dim('no sessions yet: `neuron chat` starts one\n'))
      else for (const v of views) process.stdout.write('error' in v ? `${v.id}  ${style.red(v.error)}\n` : `${v.id}  ${v.status === 'busy' ? style.cyan('busy') : 'idle'}  ${v.model}  ${v.counts.prompts} prompts${v.title ? `  ${v.title}` : ''}\n`)
      return 0
    }
    case 'chat': {
      let id = positionals[0]
      if (!id) {
        const created = await client.createSession({
          ...(typeof values.model === 'string' ? { model: values.model } : {}),
          ...(typeof values.title === 'string' ? { title: values.title } : {}),
        })
        id = created.id
      }
      return chat(client.session(id), style)
    }
    case 'tail': {
      const id = required(positionals[0], 'ID')
      const after = values.after === undefined ? 0 : Number(values.after)
      if (!Number.isInteger(after) || after < 0) throw new UsageError('--after must be a non-negative integer')
      const stop = new AbortController()
      process.once('SIGINT', () => stop.abort())
      const renderer = new Renderer(style, (text) => process.stdout.write(text), { live: Boolean(process.stdout.isTTY) })
      for await (const frame of client.session(id).events({ after, signal: stop.signal, onReconnect: () => json || renderer.note('connection lost; reconnecting…') })) {
        if (json) process.stdout.write(`${JSON.stringify(frame)}\n`)
        else if (frame.kind === 'event') {
          renderer.note(`#${frame.envelope.seq} ${frame.envelope.type.replace(EVENT_PREFIX, '')}`)
          renderer.event(frame.envelope)
        } else renderer.frame(frame)
      }
      return 130
    }
    case 'history': {
      const id = required(positionals[0], 'ID')
      for await (const event of client.session(id).allHistory()) {
        process.stdout.write(json ? `${JSON.stringify(event)}\n` : `#${event.seq} ${style.dim(new Date(event.time).toISOString())} ${event.type.replace(EVENT_PREFIX, '')} ${style.dim(JSON.stringify(event.payload ?? null).slice(0, 100))}\n`)
      }
      return 0
    }
    case 'mcp': {
      const action = positionals[0] ?? 'list'
      if (action !== 'list' && action !== 'authorize' && action !== 'forget') throw new UsageError(`unknown mcp action "${action}" (list, authorize, forget)`)
      const server = action === 'list' ? undefined : required(positionals[1], 'SERVER')
      const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined)
      const input = Object.fromEntries(Object.entries({ url: text('server-url'), clientId: text('client-id'), clientSecret: text('client-secret'), scope: text('scope') }).filter(([, v]) => v !== undefined))
      const stop = new AbortController()
      process.once('SIGINT', () => stop.abort())
      return mcp(client, { action, ...(server ? { server } : {}), input, wait: values['no-wait'] !== true }, { json, style, write: (t) => process.stdout.write(t), signal: stop.signal })
    }
    case 'schedule': {
      const known = ['list', 'add', 'delete']
      const [action, session, id] = known.includes(positionals[0] ?? '') ? positionals : ['list', ...positionals]
      const input = action === 'add' ? scheduleInput(values as Parameters<typeof scheduleInput>[0]) : undefined
      if (typeof input === 'string') throw new UsageError(input)
      return schedule(
        client,
        { action: action as 'list' | 'add' | 'delete', session: required(session, 'SESSION'), ...(action === 'delete' ? { id: required(id, 'ID') } : {}), ...(input ? { input } : {}) },
        { json, style, write: (text) => process.stdout.write(text) },
      )
    }
    case 'run': {
      const file = required(positionals[0], 'PLAN.json')
      let body: unknown
      try {
        body = JSON.parse(readFileSync(file, 'utf8'))
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`)
      }
      return run(client, body as Parameters<typeof run>[1], { json, style, write: (text) => process.stdout.write(text) })
    }
  }
  return 2
}

async function login(url: string, token: string | undefined, config: Config, json: boolean): Promise<number> {
  if (!token) {
    if (!isLoopback(url)) throw new UsageError(`--token is required for ${url} (the dev identity works on loopback only)`)
    const { readDevVar, signDevToken } = await import('../../scripts/dev-token.mjs')
    const secret = (() => {
      try {
        return readDevVar('DEV_AUTH_SECRET') as string | undefined
      } catch {
        return undefined
      }
    })()
    if (!secret) throw new UsageError('no .dev.vars here: run `npm start` once (it writes the local dev identity), or pass --token')
    token = (await signDevToken({ secret, sub: process.env.USER || 'dev' })) as string
  }
  const me = await new NeuronClient({ url, token }).me()
  config.servers[url] = { token }
  config.current = url
  writeConfig(config)
  process.stdout.write(json ? `${JSON.stringify({ url, ...me })}\n` : `logged in to ${url} as ${me.id}\n`)
  return 0
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`${name} is required`)
  return value
}

function normalize(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    throw new UsageError(`not a URL: ${url}`)
  }
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host)
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const style = styleFor(process.stderr)
    if (error instanceof UsageError) {
      process.stderr.write(`neuron: ${error.message}\n`)
      process.exit(2)
    }
    if (error instanceof NeuronApiError) {
      process.stderr.write(`neuron: ${style.red(error.code)}: ${error.message}\n`)
      process.exit(1)
    }
    // Not expected: keep the stack, it is a bug.
    process.stderr.write(`neuron: unexpected error\n${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(1)
  },
)
