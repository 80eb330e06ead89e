import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

/**
 * `npm test` runs every project:
 * - `workers`: inside workerd with the real bindings of wrangler.toml
 * - `process`: Node drives a real `wrangler dev` process (end-to-end, crash tests)
 * - `browser`: Node drives real Chromium against the shell `wrangler dev` serves
 */
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' } })],
        test: { name: 'workers', include: ['test/**/*.test.ts'], exclude: ['test/process/**', 'test/browser/**'] },
      },
      {
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
