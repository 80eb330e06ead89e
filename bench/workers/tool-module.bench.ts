/**
 * An uploaded tool module's call against the same code called in-process, inside workerd with the
 * real Worker Loader (as deployed: the isolate is loaded by the serving runtime; under `npm start`
 * module code runs in the sandbox process instead, over a loopback socket). Three paths, alternated
 * call by call on one warm isolate so the shared machine's load falls on all alike:
 * - in-process: the same function, with the checks a module call makes (input and output against
 *   their schemas, the output's JSON), in the caller's own isolate: the limit;
 * - in the shelf: `ToolModules.call` inside the principal's shelf object, which runs the tool in the
 *   module's isolate (objects/modules/store.ts): the isolate's added cost;
 * - from a session's side: the shelf's RPC `callModuleTool`, as a session's tool calls it: plus the hop;
 * - the hop alone: an RPC to the same shelf that runs nothing (`moduleAllows`), for comparison.
 * workerd's clock ticks in whole milliseconds, so each sample is a batch of calls (per call: the
 * batch's time over its calls). Printed: p50 and p90 per call over the batches, the ratio to
 * in-process, and the added p50; asserted: the isolate adds at most 2 ms p50 to a call of 1 KiB
 * of work, taken over the differences of neighbouring batches.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { assertJson } from '../../objects/ledger/json.ts'
import { assertValid, SchemaValidator } from '../../objects/ledger/validator.ts'
import type { ToolModules } from '../../objects/modules/store.ts'
import { postJson } from '../../test/support/api.ts'
import { idOf } from '../../test/support/auth.ts'

/** The function under test: an FNV-1a hash over `rounds` × 1 KiB of text (real work, no I/O). */
function digest({ text, rounds }: { text: string; rounds: number }): { hash: string; bytes: number } {
  const block = text.repeat(Math.ceil(1024 / text.length)).slice(0, 1024)
  let hash = 0x811c9dc5
  for (let r = 0; r < rounds; r++) for (let i = 0; i < block.length; i++) hash = Math.imul(hash ^ block.charCodeAt(i), 0x01000193)
  return { hash: (hash >>> 0).toString(16), bytes: rounds * block.length }
}

const INPUT = { type: 'object', properties: { text: { type: 'string', minLength: 1, maxLength: 1000 }, rounds: { type: 'integer', minimum: 1, maximum: 10_000 } }, required: ['text', 'rounds'] }
const OUTPUT = { type: 'object', properties: { hash: { type: 'string' }, bytes: { type: 'integer' } }, required: ['hash', 'bytes'] }
const MODULE = {
  module: 'bench',
  // The same function's source, so both paths run the same code.
  code: `const digest = ${digest.toString()}\nexport default { async digest(input) { return digest(input) } }`,
  tools: [{ name: 'digest', description: 'Hash some text', input: INPUT, output: OUTPUT }],
}
/** Batches per path, and calls per batch. */
const BATCHES = 41
const PER_BATCH = 25
const ADDED_P50_LIMIT_MS = 2

/** Milliseconds per call over one batch of `PER_BATCH` calls. */
async function batch(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < PER_BATCH; i++) await run()
  return (performance.now() - started) / PER_BATCH
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!

describe('an uploaded tool module', () => {
  it('a call through its isolate, against the same code in-process', async () => {
    const person = 'bench-modules'
    const stored = await postJson('/v1/modules', MODULE, person)
    expect([200, 201]).toContain(stored.status)
    const { hash } = (await stored.json()) as { hash: string }
    const id = idOf(person)
    const shelf = env.APP_SHELVES.getByName(id)
    const checks = { input: new SchemaValidator(INPUT), output: new SchemaValidator(OUTPUT) }
    console.log('\n  work      path               p50 ms   p90 ms   ratio   added p50 ms')
    for (const rounds of [1, 64]) {
      const input = { text: 'the quick brown fox jumps over the lazy dog', rounds }
      const expected = JSON.stringify(digest(input))
      const inProcess = async () => {
        assertValid(checks.input, input, 'TOOL_INPUT_INVALID', 400, 'input')
        const output = digest(input)
        assertJson(output)
        assertValid(checks.output, output, 'TOOL_OUTPUT_INVALID', 502, 'output')
        return output
      }
      const samples = { 'in-process': [] as number[], 'in the shelf': [] as number[], 'from a session': [] as number[], 'the hop alone': [] as number[] }
      await runInDurableObject(shelf, async (instance) => {
        const modules = (instance as unknown as { modules: ToolModules }).modules
        const paths: [keyof typeof samples, () => Promise<unknown>][] = [
          ['in-process', inProcess],
          ['in the shelf', async () => (await modules.call(id, 'bench', hash, 'digest', input)).output],
        ]
        for (const [name, run] of paths) if (JSON.stringify(await run()) !== expected) throw new Error(`${name} answered wrongly`)
        for (let i = 0; i < 50; i++) for (const [, run] of paths) await run() // warm: the isolate is loaded once, then reused
        for (let b = 0; b < BATCHES; b++) for (const [name, run] of paths) samples[name].push(await batch(run))
      })
      const fromSession = () => shelf.callModuleTool(id, 'bench', hash, 'digest', input)
      for (let i = 0; i < 50; i++) await fromSession()
      const hop = () => shelf.moduleAllows('bench', hash, 'https://example.com')
      for (let i = 0; i < 50; i++) await hop()
      for (let b = 0; b < BATCHES; b++) {
        samples['from a session'].push(await batch(fromSession))
        samples['the hop alone'].push(await batch(hop))
      }
      const base = percentile(samples['in-process'], 50)
      for (const [name, values] of Object.entries(samples)) {
        const p50 = percentile(values, 50)
        console.log(`  ${`${rounds} KiB`.padEnd(8)}  ${name.padEnd(16)}  ${p50.toFixed(3).padStart(7)}  ${percentile(values, 90).toFixed(3).padStart(7)}  ${(p50 / Math.max(base, 0.001)).toFixed(0).padStart(6)}  ${(p50 - base).toFixed(3).padStart(12)}`)
      }
      // Per pair of neighbouring batches, so a burst of load from another process falls on both sides of one difference.
      const added = percentile(samples['in the shelf'].map((shelfMs, b) => shelfMs - samples['in-process'][b]!), 50)
      console.log(`  ${`${rounds} KiB`.padEnd(8)}  the isolate adds ${added.toFixed(3)} ms p50 (pairwise; limit ${ADDED_P50_LIMIT_MS} ms)`)
      // The call's own cost is asserted at 1 KiB of work; at 64 KiB the figure also holds the work running slower in the
      // loaded isolate than in the caller's (printed, not asserted: it grows with the work, not with the call).
      if (rounds === 1) expect(added, `the isolate adds ${added.toFixed(3)} ms p50`).toBeLessThanOrEqual(ADDED_P50_LIMIT_MS)
    }
  })
})
