/**
 * Measuring a candidate against a limit on a shared machine: each is sampled
 * `RUNS` times, interleaved, so load from other processes falls on both alike;
 * a ratio is taken per sample, then the median.
 */

const RUNS = 9

/** How many runs of `run` take at least 100 ms (the clock is coarse). */
export async function calibrate(run: () => unknown): Promise<number> {
  let repeat = 0
  for (const started = performance.now(); performance.now() - started < 100; repeat++) await run()
  return Math.max(1, repeat)
}

/** MB/s of `repeat` runs of `run` over `bytes` each. */
export async function rate(bytes: number, repeat: number, run: () => unknown): Promise<number> {
  const started = performance.now()
  for (let r = 0; r < repeat; r++) await run()
  return (bytes * repeat) / 1e6 / ((performance.now() - started) / 1000)
}

export type Measured = { rate: number; ratio: number }
/** The middle value. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * Samples the limit and each candidate back to back, RUNS times, so load from
 * other processes hits both alike; ratios are per sample, then the median.
 *
 * @example
 * const { limit, candidates } = await compare(bytes.length, () => split(parts), [() => parse(parts)])
 * console.log(limit, candidates[0].rate, candidates[0].ratio) // MB/s, MB/s, candidate ÷ limit
 */
export async function compare(bytes: number, limit: () => unknown, candidates: Array<() => unknown>) {
  const all = [limit, ...candidates]
  const repeats = await Promise.all(all.map(async (run) => calibrate(run)))
  const samples: number[][] = all.map(() => [])
  for (let i = 0; i < RUNS; i++) {
    for (const [k, run] of all.entries()) samples[k]!.push(await rate(bytes, repeats[k]!, run))
  }
  return {
    limit: median(samples[0]!),
    candidates: samples.slice(1).map((rates) => ({
      rate: median(rates),
      ratio: median(rates.map((r, i) => r / samples[0]![i]!)),
    })),
  }
}
