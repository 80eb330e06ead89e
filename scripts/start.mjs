#!/usr/bin/env node
/**
 * `npm start [-- wrangler dev options]`: writes .dev.vars the first time (dev-vars.mjs), then runs
 * `wrangler dev` with the backend sandbox (dev.ts) quietly. Quiet means: no `Request.cf` lookup (wrangler fetches
 * workers.cloudflare.com/cf.json at start to fill `request.cf`, which Neuron never reads; offline
 * that printed a DNS stack trace twice per start), and no audit lines in development
 * (worker/gate/audit.ts), so the terminal shows wrangler's one line per request. See them with
 * `npm start -- --var NEURON_AUDIT:log`; a deployment writes them to its log (Workers Logs,
 * `wrangler tail`).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ensureDevVars } from './dev-vars.mjs'

if (ensureDevVars()) console.error('wrote .dev.vars with a local dev identity (see README: npm run -s token)')
const child = spawn(process.execPath, [fileURLToPath(new URL('./dev.ts', import.meta.url)), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { CLOUDFLARE_CF_FETCH_ENABLED: 'false', ...process.env },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
