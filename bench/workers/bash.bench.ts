/**
 * The embedded shell in workerd: its first call in an isolate, a warm `echo` through the executor
 * (workspace mounted over the file port, fresh shell per command) against just-bash's own call over
 * its own in-memory filesystem (the limit: the library with nothing of ours), and the cost of one
 * shell step, which is what `BASH_LIMITS.commands` bounds. Inside the vitest pool the first call also
 * fetches just-bash's lazily imported command modules from the test runner, so it overstates a
 * deployed cold start; the warm figures do not depend on that.
 */
import { Bash, InMemoryFs } from 'just-bash'
import { describe, it } from 'vitest'
import { BASH_LIMITS } from '../../objects/core/limits.ts'
import { embeddedExecutor } from '../../objects/workspace/bash/embedded.ts'
import { MemoryFiles } from '../../objects/workspace/bash/memory-files.ts'
import { compare } from '../support/compare.ts'

const ms = (n: number) => `${n.toFixed(2)} ms`

describe('bash (embedded just-bash)', () => {
  it('first call, warm echo vs the library, one step', async () => {
    const files = new MemoryFiles({ 'a.txt': 'hello\n' })
    let started = performance.now()
    await embeddedExecutor.run('echo hi', { files })
    const first = performance.now() - started
    started = performance.now()
    await embeddedExecutor.run('echo hi', { files })
    const second = performance.now() - started
    started = performance.now()
    await embeddedExecutor.run('echo hi > b.txt; cat b.txt | wc -c', { files })
    const pipeline = performance.now() - started

    const library = new Bash({ fs: new InMemoryFs() })
    // Rates in calls per second (compare's unit is MB/s of the bytes given: 1e6 "bytes" = one call).
    const { limit, candidates } = await compare(
      1e6,
      () => library.exec('echo hi'),
      [() => embeddedExecutor.run('echo hi', { files })],
    )

    const steps = 2_000
    started = performance.now()
    const loop = await embeddedExecutor.run('while true; do :; done', { files, limits: { commands: steps } })
    const perStep = (performance.now() - started) / steps

    console.log(`[bench] bash first call in this isolate: ${ms(first)}; second: ${ms(second)}; echo > file; cat | wc: ${ms(pipeline)}`)
    console.log(`[bench] bash echo: just-bash's own call ${limit.toFixed(0)}/s; through the executor ${candidates[0]!.rate.toFixed(0)}/s (${candidates[0]!.ratio.toFixed(2)}x)`)
    console.log(`[bench] bash one shell step: ${(perStep * 1000).toFixed(1)} µs (a busy loop stopped at ${steps} steps: ${loop.stopped}); BASH_LIMITS.commands (${BASH_LIMITS.commands}) at this rate: ${ms(perStep * BASH_LIMITS.commands)}`)
  })
})
