import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { TEST_AUTH_BINDINGS } from './test/support/auth-bindings.ts'

/**
 * `npm test` runs every project:
 * - `workers`: inside workerd with the real bindings of wrangler.toml (plus test auth keys)
 * - `process`: Node drives a real `wrangler dev` process (end-to-end, crash tests)
 * - `browser`: Node drives real Chromium against the shell `wrangler dev` serves
 */
export default defineConfig({
  test: {
    // Objects go on working after a file's last test returns (an alarm, a turn's background
    // meter and chain writes), and the module they then load is resolved through vitest's RPC,
    // which the file's teardown is closing: vitest reports it as an unhandled rejection although
    // every test of the file has ended. Only that one teardown race is set aside; every other
    // unhandled error still fails the run.
    onUnhandledError(error) {
      if (error.name === 'EnvironmentTeardownError' && /Closing rpc while "resolve" was pending/.test(error.message)) return false
    },
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' }, miniflare: { bindings: TEST_AUTH_BINDINGS } })],
        test: {
          name: 'workers',
          include: ['test/**/*.test.ts'],
          // A file's first request imports the whole worker into its isolate (seen at 5.8 s on two
          // busy cores): the default 5 s would fail whichever test of a file happens to go first.
          testTimeout: 20_000,
          // Console output goes straight to stdout: the objects log (audit lines, background work)
          // after a test has returned, and a log relayed to vitest while a worker closes fails a
          // green run ("Closing rpc while onUserConsoleLog was pending", seen under load).
          disableConsoleIntercept: true,
          exclude: ['test/process/**', 'test/browser/**'],
          // Node side of the provider tests: a fake vendor over real HTTP (inject('fakeVendorUrl')),
          // and the official SDK's MCP server (inject('mcpServerUrl'))
          globalSetup: ['test/llm/fake-vendor.setup.ts', 'test/tools/mcp-server.setup.ts'],
        },
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
