/**
 * The simple commands of a shell line, as the permission policy judges them: `git status && rm -rf x`
 * is two commands, and a rule that allows `git *` must not allow the second. The line is split at
 * the unquoted operators `;`, `&`, `&&`, `|`, `||` and line ends, with quotes and escapes respected.
 * What cannot be judged from the text (a command substitution `$(…)` or backticks, a process
 * substitution `<(…)`, an unterminated quote) is reported `opaque`: the policy then asks at least.
 *
 * Pure: no platform imports.
 */

export interface SplitCommand {
  /** Each simple command, trimmed, with its words as written. */
  commands: string[]
  /** Holds a substitution (or broken quoting) whose command cannot be read from the text. */
  opaque: boolean
}

/**
 * @example
 * splitCommands('git add . && git commit -m "a; b"') // { commands: ['git add .', 'git commit -m "a; b"'], opaque: false }
 * splitCommands('echo $(rm -rf /)') // { commands: ['echo $(rm -rf /)'], opaque: true }
 */
export function splitCommands(line: string): SplitCommand {
  const commands: string[] = []
  let current = ''
  let quote: '"' | "'" | null = null
  let opaque = false
  const push = () => {
    const command = current.trim()
    if (command !== '') commands.push(command)
    current = ''
  }
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quote === "'") {
      current += ch
      if (ch === "'") quote = null
      continue
    }
    if (ch === '\\') {
      current += ch + (line[i + 1] ?? '')
      i++
      continue
    }
    if (ch === '`' || (ch === '$' && line[i + 1] === '(') || ((ch === '<' || ch === '>') && line[i + 1] === '(')) opaque = true
    if (quote === '"') {
      current += ch
      if (ch === '"') quote = null
      continue
    }
    if (ch === '"' || ch === "'") {
      quote = ch
      current += ch
      continue
    }
    if (ch === ';' || ch === '\n' || ch === '|' || (ch === '&' && line[i - 1] !== '>' && line[i + 1] !== '>')) {
      push()
      if ((ch === '|' || ch === '&') && line[i + 1] === ch) i++
      continue
    }
    current += ch
  }
  if (quote !== null) opaque = true
  push()
  return { commands, opaque }
}
