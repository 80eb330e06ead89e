#!/usr/bin/env node
/**
 * `npm start [-- wrangler dev options]`: writes .dev.vars the first time (dev-vars.mjs), then runs
 * `wrangler dev` with the backend sandbox (dev.ts) quietly, in dev-env.mjs's environment (no
 * `Request.cf` lookup, no local trace collector). Quiet also means no audit lines in development
 * (worker/gate/audit.ts), so the terminal shows wrangler's one line per request. See them with
 * `npm start -- --var NEURON_AUDIT:log`; a deployment writes them to its log (Workers Logs,
 * `wrangler tail`).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { DEV_PROCESS_ENV } from './dev-env.mjs'
import { ensureDevVars } from './dev-vars.mjs'

if (ensureDevVars()) console.error('wrote .dev.vars with a local dev identity (see README: npm run -s token)')
const child = spawn(process.execPath, [fileURLToPath(new URL('./dev.ts', import.meta.url)), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...DEV_PROCESS_ENV, ...process.env },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
