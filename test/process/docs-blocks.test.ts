/**
 * Every code block of the README and docs/*.md runs against a real `wrangler dev`, so an
 * example that breaks fails the build. A newcomer's path, as the README gives it: `.dev.vars`
 * as `npm start` writes it (the server runs with its dev secret, so `npm run -s token` and
 * `neuron login` sign tokens it accepts), then each document's blocks in order, in one bash per
 * document (variables carry from block to block, as in a terminal), against one server (the docs
 * build on the README's five minutes: `$TOKEN`, `$H`, the `demo` session). The README runs first.
 *
 * What the test adds to a block, and nothing else:
 * - `localhost:8787` / `127.0.0.1:8787` name the test's server; `NEURON_URL` points the CLI at it,
 *   `NEURON_CONFIG` keeps its login in a temporary file.
 * - `curl` must answer 2xx, or the status a line's trailing comment names (`# 400 INVALID_INPUT`);
 *   a streaming `curl -N` is cut after 3 s, as a person would press Ctrl-C.
 * - `ts` / `js` blocks are written next to their document (so relative imports resolve as they
 *   read) and run with Node; `<!-- prints: TEXT -->` after a block: its output must contain TEXT.
 * - `<!-- not run: REASON -->` before a block skips it; `NOT_RUN` below counts them per document,
 *   so a new one is a visible change here, not a quiet one there.
 * - `<!-- is: PATH -->` before a block: the block must be that file exactly (the README's starter
 *   entry is examples/starter/src/index.ts, which the starter's own test runs in workerd).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureDevVars, DEV_VARS } from '../../scripts/dev-vars.mjs'
import { readDevVar } from '../../scripts/dev-token.mjs'
import { type DocBlock, docBlocks, expectingStatus, pointedAt } from '../support/doc-blocks.ts'
import { startWrangler, type Wrangler } from '../support/wrangler.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]
const blocks = DOCS.flatMap((doc) => docBlocks(doc, readFileSync(join(ROOT, doc), 'utf8')))

/** Blocks marked `not run`, per document (each carries its reason in the document). */
const NOT_RUN: Record<string, number> = {
  'README.md': 1, // installs and starts the server, and runs the suite this test is part of
  'docs/agent-mode.md': 3, // app-frame code: the SDK needs the kernel's port in a frame
  'docs/extending.md': 4, // a Worker's code (cloudflare:workers) and fragments of its entry; the starter's own test runs it
  'docs/mcp.md': 1, // needs an MCP server that asks for OAuth (test/process/mcp-oauth.test.ts)
  'docs/schedules.md': 1, // a hook's secret is random and its deliveries are signed by a program (test/schedules/hooks.test.ts)
  'docs/shell.md': 11, // starts the server and the browser suite; app-frame code
}

/** bash that every document's script starts with: strict, variables exported, the checked `curl`, the README's token. */
const PRELUDE = String.raw`set -euo pipefail
set -a
exec 2>&1
curl() {
  local headers rc=0 stream=0 status want=${'$'}{EXPECT_STATUS:-2xx}
  headers=$(mktemp)
  for arg in "$@"; do if [[ $arg == -[a-zA-Z]*N* ]]; then stream=1; fi; done
  if [ $stream = 1 ]; then command curl --max-time 3 -D "$headers" "$@" || rc=$?; [ $rc = 28 ] && rc=0
  else command curl -D "$headers" "$@" || rc=$?; fi
  status=$(awk '/^HTTP\//{s=$2} END{print s}' "$headers"); rm -f "$headers"
  if [ $rc != 0 ]; then echo "docs-test: curl exited $rc: curl $*"; return $rc; fi
  if [ "$want" = 2xx ]; then [[ $status == 2* ]] || { echo "docs-test: HTTP $status from: curl $*"; return 22; }
  elif [ "$status" != "$want" ]; then echo "docs-test: HTTP $status, not $want, from: curl $*"; return 22; fi
}
TOKEN=$(npm run -s token)
H="authorization: Bearer $TOKEN"
`

interface Ran {
  status: number | null
  output: string
}

function runBash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => {
      output += `\ndocs-test: timed out after ${timeoutMs} ms`
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
    }, timeoutMs)
    child.on('close', (status) => {
      clearTimeout(timer)
      done({ status, output })
    })
  })
}

/** The output between a block's markers (or from its start marker on, when it never ended). */
function outputOf(output: string, index: number): { ended: boolean; text: string } {
  const start = output.indexOf(`::docs-block ${index}\n`)
  if (start < 0) return { ended: false, text: '' }
  const from = start + `::docs-block ${index}\n`.length
  const end = output.indexOf(`::docs-block-end ${index}\n`, from)
  return { ended: end >= 0, text: output.slice(from, end < 0 ? undefined : end) }
}

describe('the code blocks of the README and docs/*.md', () => {
  let dev: Wrangler
  const written: string[] = []
  const config = join(mkdtempSync(join(tmpdir(), 'neuron-docs-')), 'config.json')

  beforeAll(async () => {
    ensureDevVars() // what `npm start` does first
    dev = await startWrangler({ vars: { DEV_AUTH_SECRET: readDevVar('DEV_AUTH_SECRET', DEV_VARS)! } })
  })
  afterAll(async () => {
    for (const file of written) rmSync(file, { force: true })
    await dev?.stop()
  })

  it('every block runs, or says in its document why not (and the list stays short)', () => {
    const skipped: Record<string, number> = {}
    for (const block of blocks) if (block.skip) skipped[block.doc] = (skipped[block.doc] ?? 0) + 1
    expect(skipped).toEqual(NOT_RUN)
    expect(blocks.filter((b) => !b.skip).length).toBeGreaterThan(15)
  })

  it('every block that says it is a file is that file, byte for byte', () => {
    const copies = blocks.filter((b) => b.is)
    expect(copies.map((b) => `${b.doc} → ${b.is}`)).toEqual(['README.md → examples/starter/src/index.ts', 'docs/extending.md → examples/starter/src/index.ts'])
    for (const block of copies) expect(`${block.code}\n`, `${block.doc}:${block.line}`).toBe(readFileSync(join(ROOT, block.is!), 'utf8'))
  })

  for (const doc of DOCS) {
    const runnable = blocks.filter((b) => b.doc === doc && !b.skip && !b.is)
    if (runnable.length === 0) continue
    it(`${doc}: ${runnable.length} block(s) run`, async () => {
      const script = [PRELUDE]
      runnable.forEach((block, index) => {
        const code = pointedAt(block.lang === 'sh' ? expectingStatus(block.code) : block.code, dev.port)
        script.push(`echo "::docs-block ${index}"`)
        if (block.lang === 'sh') script.push(code)
        else {
          const file = join(ROOT, dirname(block.doc), `.doc-block-${block.line}.${block.lang === 'js' ? 'mjs' : 'ts'}`)
          writeFileSync(file, `${code}\n`)
          written.push(file)
          script.push(`timeout 120 node '${relative(ROOT, file)}'`)
        }
        script.push(`echo; echo "::docs-block-end ${index}"`)
      })
      const env = { ...process.env, PATH: `${dirname(process.execPath)}:${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, NEURON_URL: dev.url, NEURON_CONFIG: config, NO_COLOR: '1' }
      const ran = await runBash(script.join('\n'), env, 240_000)
      runnable.forEach((block: DocBlock, index) => {
        const { ended, text } = outputOf(ran.output, index)
        const where = `${block.doc}:${block.line} (${block.lang})`
        if (!ended) throw new Error(`${where} failed (exit ${ran.status}):\n${block.code}\n--- its output:\n${text.slice(-4000) || ran.output.slice(-4000)}`)
        if (block.prints && !text.includes(block.prints)) throw new Error(`${where} printed no "${block.prints}":\n${text.slice(-2000)}`)
      })
      expect(ran.status).toBe(0)
    }, 300_000)
  }
})
