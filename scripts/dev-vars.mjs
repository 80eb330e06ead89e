#!/usr/bin/env node
/**
 * Writes .dev.vars (git-ignored, read only by `wrangler dev`) with a fresh dev
 * identity the first time: NEURON_ENV=development, DEV_AUTH_SECRET, TICKET_SECRET.
 * An existing file is left as it is.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const DEV_VARS = fileURLToPath(new URL('../.dev.vars', import.meta.url))

export function ensureDevVars(file = DEV_VARS) {
  if (existsSync(file)) return false
  const secret = () => randomBytes(32).toString('hex')
  writeFileSync(file, `NEURON_ENV=development\nDEV_AUTH_SECRET=${secret()}\nTICKET_SECRET=${secret()}\n`, { mode: 0o600 })
  return true
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (ensureDevVars()) console.error('wrote .dev.vars with a local dev identity (see README: npm run -s token)')
}
