import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { TEST_AUTH_BINDINGS } from '../test/support/auth-bindings.ts'

/**
 * `npm run bench`: each file measures one thing against its physical limit,
 * measured in the same run, and prints the ratio. Nothing here asserts on time but the tool
 * modules' isolate cost (bench/workers/tool-module.bench.ts), whose target is a bound on it.
 * - `bench/workers/*.bench.ts` run inside workerd (ledger, dialect parsers)
 * - `bench/node/*.bench.ts` drive a real `wrangler dev` or Chromium
 */
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' }, miniflare: { bindings: TEST_AUTH_BINDINGS } })],
        test: { name: 'bench-workers', root: '.', include: ['bench/workers/**/*.bench.ts'], testTimeout: 600_000 },
      },
      {
        test: {
          name: 'bench-node',
          root: '.',
          include: ['bench/node/**/*.bench.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
