/**
 * The code blocks of the README and docs/*.md, as the docs test runs them.
 * Pure: it parses markdown. A block is a fenced block at the start of a line
 * whose language is `sh`, `bash`, `ts`, `typescript` or `js` (other fences,
 * such as `json` or `text`, are data or wire descriptions, not programs). Three
 * HTML comments, invisible when rendered, tell the test more:
 *
 *   <!-- not run: REASON -->   on the line before the fence: the block is not run, for REASON
 *   <!-- is: PATH -->          on the line before the fence: the block is the file PATH (relative to the
 *                              repository root), byte for byte; that file's own project runs it
 *   <!-- prints: TEXT -->      on the line after the fence: the block's output must contain TEXT
 *
 * @example
 * for (const block of docBlocks('README.md', readFileSync('README.md', 'utf8'))) console.log(block.line, block.lang)
 */

export interface DocBlock {
  /** The document's path, relative to the repository root. */
  doc: string
  /** The line of the opening fence (1-based). */
  line: number
  lang: 'sh' | 'ts' | 'js'
  code: string
  /** Why the block is not run, when it is marked so. */
  skip?: string
  /** The file the block must equal, when it is marked so (it is then not run here). */
  is?: string
  /** Text its output must contain. */
  prints?: string
}

const LANGS: Record<string, DocBlock['lang']> = { sh: 'sh', bash: 'sh', ts: 'ts', typescript: 'ts', js: 'js' }
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/
const PRINTS = /^<!--\s*prints:\s*(.+?)\s*-->$/
const IS = /^<!--\s*is:\s*(\S+)\s*-->$/

/** Every runnable-language fenced block of `text`, in order. */
export function docBlocks(doc: string, text: string): DocBlock[] {
  const lines = text.split('\n')
  const blocks: DocBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const start = i
    let end = i + 1
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++
    i = end
    const lang = LANGS[open[1]!]
    if (!lang) continue
    const before = lines.slice(0, start).reverse().find((l) => l.trim() !== '')?.trim() ?? ''
    const after = lines[end + 1]?.trim() ?? ''
    const skip = NOT_RUN.exec(before)?.[1]
    const prints = PRINTS.exec(after)?.[1]
    const is = IS.exec(before)?.[1]
    blocks.push({ doc, line: start + 1, lang, code: lines.slice(start + 1, end).join('\n'), ...(skip ? { skip } : {}), ...(is ? { is } : {}), ...(prints ? { prints } : {}) })
  }
  return blocks
}

/** The server a doc names (`localhost:8787`, `127.0.0.1:8787`), pointed at `port`. */
export function pointedAt(code: string, port: number): string {
  return code.replace(/\b(?:localhost|127\.0\.0\.1):8787\b/g, `127.0.0.1:${port}`)
}

/**
 * A curl line that ends in `# NNN CODE` (a 4xx or 5xx the doc says it answers) gets
 * `EXPECT_STATUS=NNN` before it, so the test's `curl` checks that status instead of a 2xx.
 */
export function expectingStatus(code: string): string {
  return code.replace(/^(\s*)(curl\s.*#\s*([45]\d\d)\b.*)$/gm, '$1EXPECT_STATUS=$3 $2')
}
