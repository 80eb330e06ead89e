/**
 * The local model's command syntax: lines of the last user message that start
 * with `/`. Every other line is prose. Documented in docs/providers.md.
 *
 *   /tool NAME [JSON]    call tool NAME with JSON input (default {}); several lines → parallel calls
 *   /think TEXT          stream TEXT as reasoning first
 *   /say TEXT            answer TEXT instead of the echo
 *   /tokens N            answer with exactly N text tokens (one chunk each)
 *   /slow MS             wait MS milliseconds before each chunk
 *   /finish REASON       end with stop | length | content-filter
 *   /fail STATUS [MSG]   answer HTTP STATUS with an OpenAI-style error body
 *   /truncate            end the stream early: no finish, no usage, no [DONE]
 *   /beat NAME COMMAND   obey COMMAND only when the message has a line `beat: NAME`
 *                        (an orchestration names the beat on its prompts' first line)
 */

export interface Commands {
  prose: string
  tools: { name: string; arguments: string }[]
  think: string[]
  say: string[]
  tokens: number | undefined
  slowMs: number
  finish: 'stop' | 'length' | 'content_filter'
  /** `code` is the OpenAI-style error code, e.g. `context_length_exceeded`. */
  fail: { status: number; message: string; code?: string } | undefined
  truncate: boolean
}

/**
 * @example
 * parseCommands('add these\n/tool calculator {"expression":"2+3"}').tools
 * // [{ name: 'calculator', arguments: '{"expression":"2+3"}' }]
 */
export function parseCommands(text: string): Commands {
  const commands: Commands = {
    prose: '',
    tools: [],
    think: [],
    say: [],
    tokens: undefined,
    slowMs: 0,
    finish: 'stop',
    fail: undefined,
    truncate: false,
  }
  const prose: string[] = []
  const lines = text.split(/\r\n|\r|\n/)
  const beats = new Set(lines.map((line) => /^beat:\s*(\S+)\s*$/.exec(line.trim())?.[1]).filter((beat) => beat !== undefined))
  for (const raw of lines) {
    const line = underBeat(raw, beats)
    if (line === null) continue
    const match = /^\/(tool|think|say|tokens|slow|finish|fail|truncate)(?:\s+(.*))?$/.exec(line.trim())
    if (!match) {
      prose.push(line)
      continue
    }
    const rest = (match[2] ?? '').trim()
    switch (match[1]) {
      case 'tool': {
        const space = rest.search(/\s/)
        const name = space === -1 ? rest : rest.slice(0, space)
        const input = space === -1 ? '' : rest.slice(space + 1).trim()
        if (name) commands.tools.push({ name, arguments: input === '' ? '{}' : input })
        break
      }
      case 'think':
        commands.think.push(rest)
        break
      case 'say':
        commands.say.push(rest)
        break
      case 'tokens':
        commands.tokens = wholeNumber(rest) ?? commands.tokens
        break
      case 'slow':
        commands.slowMs = wholeNumber(rest) ?? commands.slowMs
        break
      case 'finish':
        if (rest === 'length' || rest === 'stop') commands.finish = rest
        else if (rest === 'content-filter' || rest === 'content_filter') commands.finish = 'content_filter'
        break
      case 'fail': {
        const [status, ...message] = rest.split(/\s+/)
        const code = wholeNumber(status ?? '')
        if (code !== undefined && code >= 400 && code <= 599) {
          commands.fail = { status: code, message: message.join(' ') || `local model asked to fail with ${code}` }
        }
        break
      }
      case 'truncate':
        commands.truncate = true
    }
  }
  commands.prose = prose.join('\n').replace(/\s+/g, ' ').trim()
  return commands
}

/** A `/beat NAME COMMAND` line is COMMAND under beat NAME and nothing otherwise; other lines pass. */
function underBeat(line: string, beats: Set<string>): string | null {
  const match = /^\/beat\s+(\S+)\s+(.*)$/.exec(line.trim())
  if (!match) return line
  return beats.has(match[1]!) ? match[2]! : null
}

function wholeNumber(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined
}
