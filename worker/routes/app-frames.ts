/**
 * `GET /app-frames/{token}/{file}`: an installed app's frontend files, for the
 * shell's sandboxed app frames (objects/apps/frame-files.ts). Not under /v1 and
 * not authenticated by a bearer token: a frame has an opaque origin and never
 * holds the person's token. The token in the path is the capability instead —
 * one (person, package) pair, MACed by this deployment — and the package must be
 * one the person has installed now. Everything that is not served answers the
 * same 404, so the route tells a stranger nothing about whose packages exist.
 */
import { Hono } from 'hono'
import { readFrameToken } from '../../objects/apps/frame-files.ts'
import { APP_CSP, contentType } from '../../objects/apps/frame-policy.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { settled } from '../../objects/core/rpc.ts'
import { exists } from '../../objects/directory/keys.ts'
import type { AppEnv } from '../env.ts'
import { shelfKey } from '../../objects/apps/installation.ts'

export const appFrames = new Hono<AppEnv>().get('/:token/:path{.+}', async (c) => {
  const secret = c.env.TICKET_SECRET
  if (!secret) throw new NeuronError('AUTH_MISCONFIGURED', 'TICKET_SECRET is not set', { status: 500 })
  const named = await readFrameToken(secret, c.req.param('token'))
  const path = c.req.param('path')
  const file = named && (await exists(c.env, shelfKey(named.person))) ? await settled(c.env.APP_SHELVES.getByName(named.person)).installedFile(named.hash, path) : null
  if (file === null) throw new NeuronError('APP_FILE_NOT_FOUND', 'no such file of an installed package', { status: 404 })
  return c.body(file, 200, {
    'content-type': contentType(path),
    'content-security-policy': APP_CSP,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    // Immutable: the token names one content-addressed package. Private: it is one person's.
    'cache-control': 'private, max-age=31536000, immutable',
  })
})
