#!/usr/bin/env node
/**
 * Writes .dev.vars (git-ignored, read only by `wrangler dev`) with a fresh dev
 * identity the first time: NEURON_ENV=development, DEV_AUTH_SECRET, TICKET_SECRET,
 * CREDENTIALS_SECRET (seals stored provider keys). An existing file only gains a
 * secret it lacks.
 */
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const DEV_VARS = fileURLToPath(new URL('../.dev.vars', import.meta.url))

export function ensureDevVars(file = DEV_VARS) {
  const secret = () => randomBytes(32).toString('hex')
  if (existsSync(file)) {
    // Files written before stored provider keys existed gain the one secret they lack.
    if (/^CREDENTIALS_SECRET=/m.test(readFileSync(file, 'utf8'))) return false
    appendFileSync(file, `CREDENTIALS_SECRET=${secret()}\n`)
    return true
  }
  writeFileSync(file, `NEURON_ENV=development\nDEV_AUTH_SECRET=${secret()}\nTICKET_SECRET=${secret()}\nCREDENTIALS_SECRET=${secret()}\n`, { mode: 0o600 })
  return true
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (ensureDevVars()) console.error('wrote .dev.vars with a local dev identity (see README: npm run -s token)')
}
