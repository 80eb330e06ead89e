#!/usr/bin/env node
/**
 * Writes .dev.vars (git-ignored, read only by `wrangler dev`) with a fresh dev
 * identity the first time: NEURON_ENV=development, DEV_AUTH_SECRET, TICKET_SECRET,
 * CREDENTIALS_SECRET (seals stored provider keys and app connections) and
 * VETKEYS_SECRET (the master secret apps' derived keys come from). An existing
 * file only gains the secrets it lacks.
 */
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const DEV_VARS = fileURLToPath(new URL('../.dev.vars', import.meta.url))

/** Secrets added later than the first dev identity: files written before them gain them. */
const LATER_SECRETS = ['CREDENTIALS_SECRET', 'VETKEYS_SECRET']

export function ensureDevVars(file = DEV_VARS) {
  const secret = () => randomBytes(32).toString('hex')
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8')
    const missing = LATER_SECRETS.filter((name) => !new RegExp(`^${name}=`, 'm').test(text))
    const lead = text === '' || text.endsWith('\n') ? '' : '\n'
    if (missing.length > 0) appendFileSync(file, lead + missing.map((name) => `${name}=${secret()}\n`).join(''))
    return missing.length > 0
  }
  writeFileSync(file, `NEURON_ENV=development\nDEV_AUTH_SECRET=${secret()}\nTICKET_SECRET=${secret()}\n${LATER_SECRETS.map((name) => `${name}=${secret()}\n`).join('')}`, { mode: 0o600 })
  return true
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (ensureDevVars()) console.error('wrote .dev.vars with a local dev identity (see README: npm run -s token)')
}
