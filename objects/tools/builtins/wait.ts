/**
 * `wait`: pauses for a bounded time, and stops at once when the session is
 * interrupted. The honest tool for "give it a moment" and for exercising
 * crash recovery of a long-running call.
 */
import { z } from 'zod'
import { Tool } from '../tool.ts'

export const wait = Tool.make({
  description: 'Wait for the given number of milliseconds (at most 60000).',
  input: z.object({ ms: z.number().int().min(0).max(60_000) }),
  output: z.object({ waitedMs: z.number() }),
  execute: ({ ms }, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ waitedMs: ms }), ms)
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
    }),
})
