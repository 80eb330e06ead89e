/**
 * Patterns from outside the code on RE2 (objects/ledger/pattern.ts), inside workerd: validating
 * a string against `^a*…a*$` (k = 12, the case that stalls V8) through the schema validator, by
 * input size, against the limit of reading the string once (a `charCodeAt` loop over it). Linear
 * time shows as a ratio that stays flat as the input grows. Then the worst compile the bounds
 * allow: one pattern at `MAX_PATTERN_COST`, and a schema whose patterns together reach
 * `MAX_SCHEMA_PATTERN_COST`.
 */
import { describe, it } from 'vitest'
import { compilePattern } from '../../objects/ledger/pattern.ts'
import { SchemaValidator } from '../../objects/ledger/validator.ts'
import { MAX_PATTERN_COST, MAX_SCHEMA_PATTERN_COST } from '../../objects/core/limits.ts'
import { checkSchema } from '../../objects/ledger/schema-check.ts'
import { canonicalJson } from '../../objects/ledger/json.ts'

const POLYNOMIAL = `^${'a*'.repeat(12)}$`

/** Milliseconds per run of `work`, run until 100 ms have passed (workerd's clock is coarse). */
function perRun(work: () => unknown): number {
  const started = performance.now()
  let runs = 0
  while (performance.now() - started < 100 || runs < 3) {
    work()
    runs++
  }
  return (performance.now() - started) / runs
}

describe('patterns on the linear-time engine', () => {
  it('validation time by input size, against reading the input once', () => {
    const validator = new SchemaValidator({ type: 'string', pattern: POLYNOMIAL })
    console.log(`\n${POLYNOMIAL} against a(n)b, through SchemaValidator`)
    console.log('  characters   validate ms   read-once ms   ratio')
    for (const size of [1_000, 10_000, 100_000, 1_000_000]) {
      const input = `${'a'.repeat(size)}b`
      let sink = 0
      const validate = perRun(() => validator.validate(input))
      const read = perRun(() => {
        for (let i = 0; i < input.length; i++) sink += input.charCodeAt(i)
      })
      console.log(`  ${String(size).padStart(10)}   ${validate.toFixed(3).padStart(11)}   ${read.toFixed(3).padStart(12)}   ${(validate / read).toFixed(1).padStart(5)}${sink < 0 ? '' : ''}`)
    }
  })

  it('the worst compile the bounds allow', () => {
    // Distinct patterns each time, so the cache never answers. RE2 caps one repetition at 1,000,
    // so the heaviest pattern is a sequence of them up to the weight bound.
    let n = 0
    const heaviest = () => `^[^\\n${n++}]{1,${MAX_PATTERN_COST - 24}}$`
    const literal = () => `^${String(n++).padStart(8, '0')}${'abcdefgh'.repeat((MAX_PATTERN_COST - 16) / 8)}$`
    for (const make of [heaviest, literal]) if (typeof compilePattern(make()) === 'string') throw new Error(`refused: ${make()}`)
    const worst = perRun(() => compilePattern(heaviest()))
    const long = perRun(() => compilePattern(literal()))
    const small = perRun(() => compilePattern(`^[a-z${n++}]+$`))
    const budget = () => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: MAX_SCHEMA_PATTERN_COST / MAX_PATTERN_COST }, (_, i) => [`p${i}`, { type: 'string', pattern: heaviest() }])) })
    const schema = perRun(() => {
      const s = budget()
      checkSchema(s, canonicalJson(s))
    })
    console.log(`\ncompile: one pattern at cost ${MAX_PATTERN_COST}, bounded repetition ${worst.toFixed(1)} ms, literal ${long.toFixed(1)} ms; ^[a-z]+$ ${small.toFixed(3)} ms; a schema at cost ${MAX_SCHEMA_PATTERN_COST} ${schema.toFixed(1)} ms`)
  })
})
