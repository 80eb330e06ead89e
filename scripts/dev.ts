/**
 * `npm start`: `wrangler dev` on one port, with app backends in the local sandbox process
 * (scripts/sandbox.ts; docs/backends.md#bounds). Every argument is passed on to `wrangler dev`;
 * the sandbox's address reaches the worker as the var `BACKEND_SANDBOX`. When wrangler exits, the
 * sandbox is stopped and this exits with wrangler's code; SIGINT and SIGTERM stop the sandbox and
 * are passed on to wrangler.
 * The process tests start the server through this too (test/support/wrangler.ts).
 *
 * @example
 * node scripts/dev.ts --port 8787
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startSandbox } from './sandbox.ts'

const WRANGLER = fileURLToPath(new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url))

const sandbox = await startSandbox()
const wrangler = spawn(process.execPath, [WRANGLER, 'dev', ...process.argv.slice(2), '--var', `BACKEND_SANDBOX:${sandbox.url}`], { stdio: 'inherit' })
// A terminal's Ctrl-C reaches the whole process group, the sandbox too: stop it first, so its
// supervisor does not start it again, then pass the signal on (wrangler's teardown is idempotent).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void sandbox.stop()
    wrangler.kill(signal)
  })
}
wrangler.once('exit', async (code, signal) => {
  await sandbox.stop()
  process.exit(code ?? (signal ? 1 : 0))
})
