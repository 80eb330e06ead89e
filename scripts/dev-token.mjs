#!/usr/bin/env node
/**
 * `npm run -s token [-- --sub NAME --claim org:acme --claim … --ttl SECONDS]`
 * prints a dev bearer token signed with DEV_AUTH_SECRET from .dev.vars. Only a
 * local `wrangler dev` (NEURON_ENV=development, loopback host) accepts it.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { sign } from 'hono/jwt'
import { DEV_VARS, ensureDevVars } from './dev-vars.mjs'

export const DEV_ISSUER = 'neuron-dev'

/**
 * Signs a dev token.
 * @param {{ secret: string, sub?: string, claims?: string[], ttl?: number, audience?: string }} options
 * @returns {Promise<string>}
 */
export function signDevToken({ secret, sub = 'dev', claims = [], ttl = 12 * 3600, audience = 'neuron' }) {
  const now = Math.floor(Date.now() / 1000)
  return sign({ iss: DEV_ISSUER, aud: audience, sub, claims, iat: now, exp: now + ttl }, secret, 'HS256')
}

/** The value of one variable in a .dev.vars file. */
export function readDevVar(name, file = DEV_VARS) {
  const line = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith(`${name}=`))
  return line?.slice(name.length + 1).replace(/^"|"$/g, '')
}

/**
 * `--ttl` as whole seconds, or null for anything else ("abc", "1.5", "0", "-5", "1e3").
 * @param {string} text
 * @returns {number | null}
 */
export function parseTtl(text) {
  return /^[1-9]\d{0,8}$/.test(text) ? Number(text) : null
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let values
  try {
    ;({ values } = parseArgs({
      options: { sub: { type: 'string', default: 'dev' }, claim: { type: 'string', multiple: true, default: [] }, ttl: { type: 'string', default: String(12 * 3600) } },
    }))
  } catch (error) {
    process.stderr.write(`token: ${error.message}\n`)
    process.exit(2)
  }
  const ttl = parseTtl(values.ttl)
  if (ttl === null) {
    process.stderr.write(`token: --ttl must be a whole number of seconds from 1 to 999999999, not ${JSON.stringify(values.ttl)}\n`)
    process.exit(2)
  }
  ensureDevVars()
  process.stdout.write(`${await signDevToken({ secret: readDevVar('DEV_AUTH_SECRET'), sub: values.sub, claims: values.claim, ttl })}\n`)
}
